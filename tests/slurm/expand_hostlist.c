/* Expands one Slurm hostlist per input line with cres_hostlist_expand and prints, per line,
   the hosts separated by single spaces (an empty line for none) or "ERROR <result name>".
   Used by tests/slurm/hostlist_oracle.py, which compares the output with
   `scontrol show hostnames`.

   It uses the public API only, so it links with the unit tests' implementation object:
   gcc -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -I. tests/slurm/expand_hostlist.c \
       build/impl.o -o build/expand_hostlist */

#include "../../cluster_resolver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *result_name(cres_result r) {
    switch (r) {
    case CRES_OK: return "CRES_OK";
    case CRES_ERR_INVALID_ARGUMENT: return "CRES_ERR_INVALID_ARGUMENT";
    case CRES_ERR_OUT_OF_MEMORY: return "CRES_ERR_OUT_OF_MEMORY";
    case CRES_ERR_LIMIT: return "CRES_ERR_LIMIT";
    case CRES_ERR_BUFFER_TOO_SMALL: return "CRES_ERR_BUFFER_TOO_SMALL";
    default: return "CRES_ERR_OTHER";
    }
}

/* All of stdin in one NUL-terminated block (lists may be megabytes long). */
static char *read_all(size_t *out_len) {
    size_t len = 0, cap = 1 << 16, n;
    char *buf = (char *)malloc(cap), *bigger;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, stdin)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            bigger = (char *)realloc(buf, cap * 2);
            if (!bigger) free(buf);
            buf = bigger;
            cap *= 2;
        }
    }
    if (buf) buf[len] = '\0';
    *out_len = len;
    return buf;
}

/* Prints the hosts of one list on one line; 0 on success, 1 when our answer is inconsistent. */
static int expand_line(const char *list) {
    size_t len = 0, count = 0, len2 = 0, count2 = 0, i, lines = 0;
    cres_error err;
    cres_result r = cres_hostlist_expand(list, NULL, 0, &len, &count, &err);
    char *hosts;
    if (r != CRES_OK) {
        printf("ERROR %s\n", result_name(r));
        return 0;
    }
    hosts = (char *)malloc(len + 1);
    if (!hosts) {
        fprintf(stderr, "expand_hostlist: out of memory\n");
        exit(2);
    }
    r = cres_hostlist_expand(list, hosts, len + 1, &len2, &count2, &err);
    if (r != CRES_OK || len2 != len || count2 != count) {
        fprintf(stderr, "expand_hostlist: the length query and the expansion disagree on \"%s\"\n", list);
        free(hosts);
        printf("ERROR INCONSISTENT\n");
        return 1;
    }
    for (i = 0; i < len; i++) /* "a\nb\n" -> "a b" */
        if (hosts[i] == '\n') {
            lines++;
            hosts[i] = i + 1 < len ? ' ' : '\0';
        }
    if (lines != count) {
        fprintf(stderr, "expand_hostlist: %zu hosts counted, %zu written for \"%s\"\n", count, lines, list);
        free(hosts);
        printf("ERROR INCONSISTENT\n");
        return 1;
    }
    printf("%s\n", hosts);
    free(hosts);
    return 0;
}

int main(void) {
    size_t len;
    char *all = read_all(&len), *line, *nl;
    int bad = 0;
    if (!all) {
        fprintf(stderr, "expand_hostlist: out of memory\n");
        return 2;
    }
    for (line = all; line < all + len; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl) nl = all + len; /* a last line without '\n' */
        *nl = '\0';
        bad |= expand_line(line);
    }
    free(all);
    return bad || fflush(stdout) != 0;
}
