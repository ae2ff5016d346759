/* output.h — writing output files all or nothing.
 *
 * Takes: finished texts and their paths. Gives: the files, each written to a
 * temporary file beside its target and renamed into place only once every
 * text of the set has been written, so an error leaves no partial output.
 * A file that already holds its text is not written at all (its mtime stays,
 * for build tools that restat their outputs). */
#ifndef TILEPP_OUTPUT_H
#define TILEPP_OUTPUT_H

#include <stdbool.h>

typedef struct OutputFile {
    const char *path; /* "-" writes to standard output, directly */
    const char *text;
} OutputFile;

/* Writes all files or none; reports and returns false on failure, and
 * when an output is `input` (NULL: none to protect) or two outputs name one
 * file. An existing device or FIFO (`-o /dev/null`) is written in place,
 * after the others. */
bool write_outputs(const OutputFile *files, int n, const char *input);

#endif
