/* Times cres_hostlist_expand in-process: reads one hostlist from a file, expands it again and
   again into a buffer large enough for the result, and prints the median time of one call.

   usage: expand_bench LISTFILE [MIN_SECONDS]   -> "hosts=N bytes=B calls=C median_us=M min_us=L"
          expand_bench LISTFILE --print         -> the hosts, one per line (to check them)

   gcc -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -I. bench/hostlist/expand_bench.c \
       -o build/bench/expand_bench */

#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CALLS 100000

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    long n;
    char *s;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        if (f) fclose(f);
        return NULL;
    }
    s = (char *)malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    if (s) {
        s[n] = '\0';
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = '\0';
    }
    return s;
}

int main(int argc, char **argv) {
    char *list, *buf;
    size_t len = 0, count = 0, calls = 0;
    double min_seconds = 0.3, *times, started;
    cres_error err;
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: expand_bench LISTFILE [MIN_SECONDS | --print]\n");
        return 2;
    }
    if (!(list = read_file(argv[1]))) {
        fprintf(stderr, "expand_bench: cannot read %s\n", argv[1]);
        return 2;
    }
    if (cres_hostlist_expand(list, NULL, 0, &len, &count, &err) != CRES_OK) {
        fprintf(stderr, "expand_bench: %s\n", err.message);
        return 1;
    }
    buf = (char *)malloc(len + 1);
    times = (double *)malloc(MAX_CALLS * sizeof *times);
    if (!buf || !times) {
        fprintf(stderr, "expand_bench: out of memory\n");
        return 2;
    }
    if (argc == 3 && strcmp(argv[2], "--print") == 0) {
        if (cres_hostlist_expand(list, buf, len + 1, NULL, NULL, &err) != CRES_OK) return 1;
        fwrite(buf, 1, len, stdout);
        return fflush(stdout) != 0;
    }
    if (argc == 3) min_seconds = atof(argv[2]);
    /* one warm-up call, then timed calls until min_seconds have passed (at least 5) */
    cres_hostlist_expand(list, buf, len + 1, NULL, NULL, &err);
    started = now_us();
    while (calls < MAX_CALLS && (calls < 5 || now_us() - started < min_seconds * 1e6)) {
        double t0 = now_us();
        if (cres_hostlist_expand(list, buf, len + 1, NULL, NULL, &err) != CRES_OK) {
            fprintf(stderr, "expand_bench: %s\n", err.message);
            return 1;
        }
        times[calls++] = now_us() - t0;
    }
    qsort(times, calls, sizeof *times, by_value);
    printf("hosts=%zu bytes=%zu calls=%zu median_us=%.2f min_us=%.2f\n", count, len, calls,
           calls % 2 ? times[calls / 2] : (times[calls / 2 - 1] + times[calls / 2]) / 2, times[0]);
    free(times);
    free(buf);
    free(list);
    return 0;
}
