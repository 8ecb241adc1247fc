/* Tests that talk to a real server: start `hmasweep serve` on a Unix socket, TCP 127.0.0.1:0 and shared
 * memory (plus extra flags), and read its three URLs (unix, tcp, shm) from --ready-fd.  A server that
 * does not come up ends the test (exit 1). */
#ifndef HS_SERVE_FORK_H
#define HS_SERVE_FORK_H
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static pid_t hs_test_serve(const char *cli, const char *sock, const char *shm_prefix, const char *const *extra,
                           char urls[3][160]) {
    int fds[2];
    if (pipe(fds) != 0) exit(2);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        char fd[16], shm[64];
        snprintf(fd, sizeof fd, "%d", fds[1]);
        snprintf(shm, sizeof shm, "%s_%d", shm_prefix, (int)getppid());
        const char *argv[32] = {cli, "serve", "--unix", sock, "--tcp", "127.0.0.1:0", "--shm", shm, "--ready-fd", fd};
        int n = 10;
        for (; extra && *extra && n < 31; extra++) argv[n++] = *extra;
        argv[n] = NULL;
        execv(cli, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    char line[400] = {0};
    ssize_t n = read(fds[0], line, sizeof line - 1);
    close(fds[0]);
    if (n <= 0 || sscanf(line, "ready %159s %159s %159s", urls[0], urls[1], urls[2]) != 3) {
        fprintf(stderr, "server did not start: '%s'\n", line);
        exit(1);
    }
    return pid;
}
#endif
