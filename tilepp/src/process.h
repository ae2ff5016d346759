/* process.h — running other programs (nvcc, ptxas, cuobjdump, nvdisasm)
 * and the temporary directories their files go to.
 *
 * Takes: an argument vector, never a shell command line (no quoting to get
 * wrong). Gives: the program's exit status and everything it wrote to
 * stdout and stderr, read through pipes. */
#ifndef TILEPP_PROCESS_H
#define TILEPP_PROCESS_H

#include <stdbool.h>

typedef struct ProcessResult {
    int status; /* the exit status; 128 + N when signal N killed it */
    char *out;  /* stdout (arena memory) */
    char *err;  /* stderr (arena memory) */
} ProcessResult;

/* Runs argv[0] (a path) with the arguments argv (NULL-terminated), stdin
 * from /dev/null. `path_first`: a directory put in front of the child's
 * PATH (cuobjdump runs nvdisasm from PATH), or NULL. Returns false when
 * the program could not be started (r->err then says why). */
bool run_process(const char *const *argv, const char *path_first, ProcessResult *r);

/* The command as a shell would read it, for messages (arena memory). */
char *command_text(const char *const *argv);

/* A new private directory under $TMPDIR (or /tmp): "tilepp-XXXXXX"
 * (arena memory); NULL after reporting an error. */
char *make_temp_dir(void);
/* Removes the directory and the files in it (it holds no subdirectories). */
void remove_temp_dir(const char *dir);

/* Whether `path` names an executable regular file. */
bool is_executable(const char *path);
/* `name` looked up in `dirs`, a ':'-separated list like $PATH: the first
 * executable <dir>/<name> (arena memory), or NULL. */
char *find_in_dirs(const char *name, const char *dirs);
/* The directory part of a path: "a/b/c" -> "a/b", "c" -> "." (arena). */
char *dir_of(const char *path);

#endif
