#define _POSIX_C_SOURCE 200809L
#include "process.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "util.h"

extern char **environ;

/* The environment with PATH=<first>:<PATH> (arena memory); the caller's
 * own environment when `first` is NULL. */
static char **child_environment(const char *first)
{
    if (!first)
        return environ;
    int n = 0;
    while (environ[n])
        n++;
    char **env = anew((size_t)(n + 2) * sizeof *env);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!str_starts_with(environ[i], "PATH="))
            env[k++] = environ[i];
    const char *path = getenv("PATH");
    env[k++] = path && *path ? aprintf("PATH=%s:%s", first, path) : aprintf("PATH=%s", first);
    env[k] = NULL;
    return env;
}

/* Reads both pipes until the child closes them; poll() keeps a child that
 * fills one pipe from blocking while we wait on the other. */
static void drain(int out_fd, int err_fd, Str *out, Str *err)
{
    struct pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    Str *dest[2] = {out, err};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[65536];
            ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                str_addn(dest[i], buf, (size_t)got);
            } else if (got == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
}

static bool spawn(const char *const *argv, char **env, int out_w, int err_w, pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_w, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_w, STDERR_FILENO);
    int rc = posix_spawn(pid, argv[0], &actions, NULL, (char *const *)argv, env);
    posix_spawn_file_actions_destroy(&actions);
    errno = rc;
    return rc == 0;
}

bool run_process(const char *const *argv, const char *path_first, ProcessResult *r)
{
    *r = (ProcessResult){.status = -1, .out = "", .err = ""};
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) != 0)
        return r->err = aprintf("cannot create a pipe: %s", strerror(errno)), false;
    if (pipe(err_pipe) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        return r->err = aprintf("cannot create a pipe: %s", strerror(errno)), false;
    }
    /* The read ends must not leak into the child (it would never see EOF). */
    fcntl(out_pipe[0], F_SETFD, FD_CLOEXEC);
    fcntl(err_pipe[0], F_SETFD, FD_CLOEXEC);
    pid_t pid;
    bool started = spawn(argv, child_environment(path_first), out_pipe[1], err_pipe[1], &pid);
    int spawn_errno = errno;
    close(out_pipe[1]);
    close(err_pipe[1]);
    Str out = {0}, err = {0};
    if (started)
        drain(out_pipe[0], err_pipe[0], &out, &err);
    else {
        close(out_pipe[0]);
        close(err_pipe[0]);
    }
    int wstatus = 0;
    while (started && waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    r->out = atake(&out);
    r->err = atake(&err);
    if (!started)
        return r->err = aprintf("cannot run '%s': %s", argv[0], strerror(spawn_errno)), false;
    r->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    return true;
}

/* An argument as the shell would need it: bare when it holds only safe
 * characters, in single quotes otherwise. */
static void add_quoted(Str *s, const char *arg)
{
    bool plain = *arg != '\0';
    for (const char *p = arg; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%", *p) != NULL;
    if (plain) {
        str_add(s, arg);
        return;
    }
    str_addc(s, '\'');
    for (const char *p = arg; *p; p++) {
        if (*p == '\'')
            str_add(s, "'\\''"); /* close, an escaped quote, reopen */
        else
            str_addc(s, *p);
    }
    str_addc(s, '\'');
}

char *command_text(const char *const *argv)
{
    Str s = {0};
    for (int i = 0; argv[i]; i++) {
        if (i)
            str_addc(&s, ' ');
        add_quoted(&s, argv[i]);
    }
    return atake(&s);
}

char *make_temp_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = aprintf("%s/tilepp-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        error_at((SrcLoc){0}, "cannot create a temporary directory %s: %s", dir, strerror(errno));
        return NULL;
    }
    return dir;
}

void remove_temp_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            remove(aprintf("%s/%s", dir, e->d_name));
    closedir(d);
    rmdir(dir);
}

bool is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *find_in_dirs(const char *name, const char *dirs)
{
    if (!dirs)
        return NULL;
    for (const char *p = dirs; *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        /* An empty entry of PATH means the current directory. */
        char *candidate = len ? aprintf("%.*s/%s", (int)len, p, name) : aprintf("./%s", name);
        if (is_executable(candidate))
            return candidate;
        if (!colon)
            break;
        p = colon + 1;
    }
    return NULL;
}

char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return astrdup(".");
    if (slash == path)
        return astrdup("/");
    return astrndup(path, (size_t)(slash - path));
}
