/* rusage_exec: runs a command and writes its own resource usage to a file, for run.py.
 *
 *   usage: rusage_exec OUT_FILE CMD [ARGS...]
 *   OUT_FILE gets one line: "<ru_maxrss KiB> <user s> <system s>"; the exit status is the
 *   command's (128 + signal when it was killed; 125 when rusage_exec itself failed).
 *
 * Why not os.wait4() on the command straight from Python: when a process execs, Linux folds
 * the peak RSS of the address space it had before (the parent's, shared by vfork or copied by
 * fork) into the ru_maxrss it will report. Spawned from a Python parent, even `true` reports
 * the parent's ~10-15 MiB. Forked from this small program the floor is about 1 MiB. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

int main(int argc, char **argv) {
    if (argc < 3) {
        fputs("usage: rusage_exec OUT_FILE CMD [ARGS...]\n", stderr);
        return 125;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("rusage_exec: fork");
        return 125;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("rusage_exec: wait4");
        return 125;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f || fprintf(f, "%ld %.6f %.6f\n", ru.ru_maxrss, seconds(ru.ru_utime), seconds(ru.ru_stime)) < 0 ||
        fclose(f) != 0) {
        perror(argv[1]);
        return 125;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
