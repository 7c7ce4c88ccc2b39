/* libFuzzer target: the input (as a C string: bytes after an embedded NUL are not seen) goes
   to cres_hostlist_expand and to cres_tasks_per_node_expand.

   Hostlist: a rejection is CRES_ERR_INVALID_ARGUMENT or CRES_ERR_LIMIT with a message. An
   accepted list gives the same length and count from a length query and from a real buffer;
   the text is exactly out_count '\n'-terminated, non-empty lines holding no separator
   (',', ' ', '\t', '\n', '\r') and no bracket; a buffer one byte short is
   CRES_ERR_BUFFER_TOO_SMALL with the text cut there. A list without brackets must be
   accepted and give its names unchanged, in order.

   Tasks per node: a rejection is CRES_ERR_INVALID_ARGUMENT or CRES_ERR_LIMIT with a message;
   an accepted text gives the same count from a count query and a real array, each count in
   0..1000000, and an array one short is CRES_ERR_BUFFER_TOO_SMALL.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_hostlist.c -o build/fuzz_hostlist */

#include "fuzz_common.h"

/* Outputs larger than this are only measured, not written (a 4 KB name times a million). */
#define MAX_WRITTEN ((size_t)32 << 20)

static void check_failure(cres_result r, const cres_error *err) {
    CHECK(r == CRES_ERR_INVALID_ARGUMENT || r == CRES_ERR_LIMIT);
    fuzz_check_error(r, err);
}

static int is_separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The names of a list without brackets, each followed by '\n'. */
static char *plain_names(const char *s, size_t *count) {
    size_t n = strlen(s), o = 0, i;
    char *out = (char *)malloc(n + 2);
    CHECK(out != NULL);
    *count = 0;
    for (i = 0; i < n; i++) {
        if (is_separator(s[i])) continue;
        out[o++] = s[i];
        if (i + 1 == n || is_separator(s[i + 1])) {
            out[o++] = '\n';
            ++*count;
        }
    }
    out[o] = '\0';
    return out;
}

static void fuzz_hostlist(const char *text) {
    size_t len = 0, count = 0, len2 = 0, count2 = 0, lines = 0, i, line_start = 0;
    cres_error err;
    char *buf;
    cres_result r = cres_hostlist_expand(text, NULL, 0, &len, &count, &err);
    int plain = strchr(text, '[') == NULL && strchr(text, ']') == NULL;
    if (r != CRES_OK) {
        CHECK(!plain);
        check_failure(r, &err);
        /* a real buffer fails the same way */
        {
            char small[8];
            cres_error err2;
            CHECK(cres_hostlist_expand(text, small, sizeof small, NULL, NULL, &err2) == r);
        }
        return;
    }
    CHECK(err.result == CRES_OK);
    CHECK(count <= 1000000);
    CHECK(len >= 2 * count);
    if (len > MAX_WRITTEN) return;
    buf = (char *)malloc(len + 1);
    CHECK(buf != NULL);
    CHECK(cres_hostlist_expand(text, buf, len + 1, &len2, &count2, &err) == CRES_OK);
    CHECK(len2 == len && count2 == count);
    CHECK(strlen(buf) == len);
    for (i = 0; i < len; i++) {
        char c = buf[i];
        if (c == '\n') {
            CHECK(i > line_start); /* no empty line */
            lines++;
            line_start = i + 1;
            continue;
        }
        CHECK(!is_separator(c) && c != '[' && c != ']');
    }
    CHECK(line_start == len); /* the last line ends with '\n' */
    CHECK(lines == count);
    if (plain) {
        size_t want_count;
        char *want = plain_names(text, &want_count);
        CHECK(want_count == count);
        CHECK(strcmp(want, buf) == 0);
        free(want);
    }
    if (len > 0) { /* one byte short */
        char *cut = (char *)malloc(len);
        CHECK(cut != NULL);
        len2 = count2 = 0;
        r = cres_hostlist_expand(text, cut, len, &len2, &count2, &err);
        CHECK(r == CRES_ERR_BUFFER_TOO_SMALL);
        CHECK(err.result == r && err.message[0] != '\0');
        CHECK(len2 == len && count2 == count);
        CHECK(strlen(cut) == len - 1);
        CHECK(memcmp(cut, buf, len - 1) == 0);
        free(cut);
    }
    free(buf);
}

static void fuzz_tasks(const char *text) {
    size_t n = 0, n2 = 0, i;
    cres_error err;
    int *counts;
    cres_result r = cres_tasks_per_node_expand(text, NULL, 0, &n, &err);
    if (r != CRES_OK) {
        int small[4];
        cres_error err2;
        check_failure(r, &err);
        CHECK(cres_tasks_per_node_expand(text, small, 4, &n2, &err2) == r);
        return;
    }
    CHECK(n >= 1 && n <= 1000000);
    counts = (int *)malloc((n + 1) * sizeof *counts);
    CHECK(counts != NULL);
    for (i = 0; i <= n; i++) counts[i] = -1;
    CHECK(cres_tasks_per_node_expand(text, counts, n, &n2, &err) == CRES_OK);
    CHECK(n2 == n);
    for (i = 0; i < n; i++) CHECK(counts[i] >= 0 && counts[i] <= 1000000);
    CHECK(counts[n] == -1);
    counts[n - 1] = -1;
    n2 = 0;
    r = cres_tasks_per_node_expand(text, n > 1 ? counts : NULL, n - 1, &n2, &err);
    if (n > 1) {
        CHECK(r == CRES_ERR_BUFFER_TOO_SMALL);
        CHECK(err.result == r && err.message[0] != '\0');
        CHECK(counts[n - 1] == -1);
    } else {
        CHECK(r == CRES_OK); /* cap 0 and no array: a count query */
    }
    CHECK(n2 == n);
    free(counts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size, 0);
    if (!text) return 0;
    fuzz_hostlist(text);
    fuzz_tasks(text);
    free(text);
    return 0;
}
