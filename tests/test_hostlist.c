/* Unit tests for the Slurm hostlist helpers of cluster_resolver.h: cres_hostlist_expand and
   cres_tasks_per_node_expand. Cases come from TensorFlow's expand_hostlist /
   expand_tasks_per_node tables (reference/tf-resolvers.md section 4.6), from the
   `scontrol show hostnames` outputs and tasks-per-node values seen under a real Slurm
   (reference/envs.md section 1), and from the bug classes users reported against other
   parsers (reference/peers.md section 9, items 1, 31, 32, 39-43). */

#include "test_util.h"

#ifndef CRES_MAX_HOSTLIST_HOSTS
#  define CRES_MAX_HOSTLIST_HOSTS 1000000 /* the documented default */
#endif

/* ---------------------------------------------------------------------------------------
   Helpers */

/* "a b c" -> "a\nb\nc\n" (the expected output written with spaces for readability). */
static char *lines_of(const char *words, size_t *count) {
    size_t n = strlen(words), i, o = 0, c = 0;
    char *out = (char *)malloc(n + 2);
    assert_non_null(out);
    for (i = 0; i < n; i++) {
        if (words[i] == ' ') continue;
        out[o++] = words[i];
        if (words[i + 1] == ' ' || words[i + 1] == '\0') {
            out[o++] = '\n';
            c++;
        }
    }
    out[o] = '\0';
    if (count) *count = c;
    return out;
}

/* Expands `list` (a length query, then an exact-size buffer) and compares with `want`. */
static void expect_hosts(const char *list, const char *want_words, int line) {
    size_t want_count, len = 12345, len2 = 0, count = 12345, count2 = 0;
    char *want = lines_of(want_words, &want_count);
    char *buf;
    cres_error err;
    cres_result r = cres_hostlist_expand(list, NULL, 0, &len, &count, &err);
    if (r != CRES_OK)
        fail_msg("line %d: length query of \"%s\" returned %s: %s", line, list, cres_result_string(r),
                 err.message);
    if (len != strlen(want))
        fail_msg("line %d: \"%s\": length query says %zu, want %zu", line, list, len, strlen(want));
    if (count != want_count)
        fail_msg("line %d: \"%s\": length query counts %zu hosts, want %zu", line, list, count, want_count);
    buf = (char *)malloc(len + 1);
    assert_non_null(buf);
    r = cres_hostlist_expand(list, buf, len + 1, &len2, &count2, &err);
    if (r != CRES_OK)
        fail_msg("line %d: \"%s\" returned %s: %s", line, list, cres_result_string(r), err.message);
    if (strcmp(buf, want) != 0) fail_msg("line %d: \"%s\" gave\n%s\nwant\n%s", line, list, buf, want);
    if (len2 != len || count2 != count)
        fail_msg("line %d: \"%s\": len %zu count %zu, query said %zu %zu", line, list, len2, count2, len, count);
    if (err.result != CRES_OK) fail_msg("line %d: err.result is %d after success", line, (int)err.result);
    free(buf);
    free(want);
}
#define HOSTS(list, want) expect_hosts((list), (want), __LINE__)

/* A rejected hostlist: the code, err.result, a substring of the message, and (for a list
   short enough to be quoted whole) the list itself in double quotes. */
static void expect_bad_list(const char *list, cres_result want, const char *sub, int line) {
    char buf[256];
    char quoted[128];
    size_t len = 0, count = 777;
    cres_error err;
    cres_result r;
    /* a length query and a real buffer must agree */
    r = cres_hostlist_expand(list, NULL, 0, &len, &count, &err);
    if (r != want)
        fail_msg("line %d: length query of \"%s\": got %s, want %s: %s", line, list, cres_result_string(r),
                 cres_result_string(want), err.message);
    memset(buf, 'x', sizeof buf);
    r = cres_hostlist_expand(list, buf, sizeof buf, &len, &count, &err);
    if (r != want)
        fail_msg("line %d: \"%s\": got %s, want %s: %s", line, list, cres_result_string(r), cres_result_string(want),
                 err.message);
    if (err.result != want) fail_msg("line %d: err.result is %d", line, (int)err.result);
    if (!strstr(err.message, sub))
        fail_msg("line %d: \"%s\": message \"%s\" does not contain \"%s\"", line, list, err.message, sub);
    if (strlen(list) < 40 && !strchr(list, '"') && !strchr(list, '\\') && !strchr(list, '\t') &&
        !strchr(list, '\n')) {
        snprintf(quoted, sizeof quoted, "\"%s\"", list);
        if (!strstr(err.message, quoted))
            fail_msg("line %d: message \"%s\" does not quote the list %s", line, err.message, quoted);
    }
}
#define BAD_LIST(list, sub) expect_bad_list((list), CRES_ERR_INVALID_ARGUMENT, (sub), __LINE__)
#define LIMIT_LIST(list) expect_bad_list((list), CRES_ERR_LIMIT, "1000000", __LINE__)


/* Expected tasks-per-node counts. */
static void expect_counts(const char *text, const int *want, size_t want_n, int line) {
    size_t n = 999, n2 = 0, i;
    int *counts;
    cres_error err;
    cres_result r = cres_tasks_per_node_expand(text, NULL, 0, &n, &err);
    if (r != CRES_OK)
        fail_msg("line %d: count query of \"%s\" returned %s: %s", line, text, cres_result_string(r), err.message);
    if (n != want_n) fail_msg("line %d: \"%s\": count query says %zu, want %zu", line, text, n, want_n);
    counts = (int *)malloc((want_n + 1) * sizeof *counts);
    assert_non_null(counts);
    for (i = 0; i <= want_n; i++) counts[i] = -7;
    r = cres_tasks_per_node_expand(text, counts, want_n, &n2, &err);
    if (r != CRES_OK)
        fail_msg("line %d: \"%s\" returned %s: %s", line, text, cres_result_string(r), err.message);
    if (n2 != want_n) fail_msg("line %d: \"%s\": %zu counts, want %zu", line, text, n2, want_n);
    for (i = 0; i < want_n; i++)
        if (counts[i] != want[i]) fail_msg("line %d: \"%s\": counts[%zu] is %d, want %d", line, text, i, counts[i], want[i]);
    if (counts[want_n] != -7) fail_msg("line %d: \"%s\": wrote past the end", line, text);
    free(counts);
}
#define COUNTS(text, ...)                                                                  \
    do {                                                                                   \
        static const int want_[] = {__VA_ARGS__};                                          \
        expect_counts((text), want_, sizeof want_ / sizeof want_[0], __LINE__);            \
    } while (0)

static void expect_bad_counts(const char *text, cres_result want, const char *sub, int line) {
    int counts[64];
    size_t n = 0;
    cres_error err;
    cres_result r = cres_tasks_per_node_expand(text, NULL, 0, &n, &err);
    if (r != want)
        fail_msg("line %d: count query of \"%s\": got %s, want %s: %s", line, text, cres_result_string(r),
                 cres_result_string(want), err.message);
    r = cres_tasks_per_node_expand(text, counts, 64, &n, &err);
    if (r != want)
        fail_msg("line %d: \"%s\": got %s, want %s: %s", line, text, cres_result_string(r), cres_result_string(want),
                 err.message);
    if (err.result != want) fail_msg("line %d: err.result is %d", line, (int)err.result);
    if (!strstr(err.message, sub))
        fail_msg("line %d: \"%s\": message \"%s\" does not contain \"%s\"", line, text, err.message, sub);
}
#define BAD_COUNTS(text) expect_bad_counts((text), CRES_ERR_INVALID_ARGUMENT, "tasks-per-node", __LINE__)

/* A string of n copies of `piece`, then `tail`; the caller frees it. */
static char *repeat(const char *piece, size_t n, const char *head, const char *tail) {
    size_t pl = strlen(piece), hl = strlen(head), tl = strlen(tail), i;
    char *s = (char *)malloc(hl + pl * n + tl + 1), *o = s;
    assert_non_null(s);
    memcpy(o, head, hl);
    o += hl;
    for (i = 0; i < n; i++, o += pl) memcpy(o, piece, pl);
    memcpy(o, tail, tl + 1);
    return s;
}

/* ---------------------------------------------------------------------------------------
   TensorFlow's expand_hostlist table (section 4.6) */

static void tf_table(void **state) {
    (void)state;
    HOSTS("n1", "n1");
    HOSTS("n[1,3]", "n1 n3");
    HOSTS("n[1-3]", "n1 n2 n3");
    HOSTS("n[1-2],m5,o[3-4,6,7-9]", "n1 n2 m5 o3 o4 o6 o7 o8 o9");
    HOSTS("n[0001-0003],m5,o[009-011]", "n0001 n0002 n0003 m5 o009 o010 o011");
    /* the resolver test's SLURM_STEP_NODELIST */
    HOSTS("t02n13,t02n41,t02n43", "t02n13 t02n41 t02n43");
}

/* `scontrol show hostnames` outputs (envs.md section 1) */
static void scontrol_outputs(void **state) {
    (void)state;
    HOSTS("node[1-3,5],gpu[01-02]", "node1 node2 node3 node5 gpu01 gpu02");
    HOSTS("a[1-2]-b[3-4],c", "a1-b3 a1-b4 a2-b3 a2-b4 c");
    HOSTS("node[001-003],x[9-11]", "node001 node002 node003 x9 x10 x11");
    HOSTS("n[1-2],n[2-3]", "n1 n2 n2 n3");
    HOSTS("vm", "vm");
    HOSTS("node[1-4]", "node1 node2 node3 node4");
    HOSTS("node[1,3-4]", "node1 node3 node4");
    HOSTS("node[2-3]", "node2 node3");
}

/* Bug classes other parsers had (peers.md section 9) */
static void reported_bug_classes(void **state) {
    (void)state;
    /* 1, 40: zero padding lost or wrongly added */
    HOSTS("n[009-011]", "n009 n010 n011");
    HOSTS("b04-[09-10]", "b04-09 b04-10");
    /* 31: linux[1,2] gave "linux[1" */
    HOSTS("linux[1,2]", "linux1 linux2");
    /* 32: dashes in names */
    HOSTS("jean-zay-ia810", "jean-zay-ia810");
    HOSTS("jean-zay-ia[810-811],jean-zay-iam01", "jean-zay-ia810 jean-zay-ia811 jean-zay-iam01");
    /* 39: host-[001-002], names without digits, c[1-2] */
    HOSTS("host-[001-002]", "host-001 host-002");
    HOSTS("alpha,beta,gamma", "alpha beta gamma");
    HOSTS("login", "login");
    HOSTS("c[1-2]", "c1 c2");
    /* 42: comma inside brackets */
    HOSTS("nodes[006,011]", "nodes006 nodes011");
    /* 43: two bracket groups */
    HOSTS("foo-[10-12]-[01-02]", "foo-10-01 foo-10-02 foo-11-01 foo-11-02 foo-12-01 foo-12-02");
    /* 41: mixed padding is not the same host */
    HOSTS("n[1,01,001]", "n1 n01 n001");
}

static void two_groups_twenty_two_hosts(void **state) {
    size_t len = 0, count = 0;
    char buf[512];
    cres_error err;
    (void)state;
    OK(cres_hostlist_expand("foo-[10-20]-[01-02]", buf, sizeof buf, &len, &count, &err));
    assert_int_equal(count, 22);
    assert_true(strncmp(buf, "foo-10-01\nfoo-10-02\nfoo-11-01\n", 30) == 0);
    assert_int_equal(len, 22 * 10);
    assert_string_equal(buf + len - 20, "foo-20-01\nfoo-20-02\n");
}

/* ---------------------------------------------------------------------------------------
   Grammar */

static void whitespace_separates_names(void **state) {
    (void)state;
    HOSTS("n1 n2", "n1 n2");
    HOSTS("n1\tn2", "n1 n2");
    HOSTS("n1\nn2\n", "n1 n2");
    HOSTS("  n[1-2] \t\n m5  ", "n1 n2 m5");
    HOSTS("a, b ,c\t,\td\n,e", "a b c d e");
    HOSTS("n[1-2]\nm[3-4]", "n1 n2 m3 m4");
}

static void several_bracket_groups(void **state) {
    (void)state;
    HOSTS("a[1-2]-b[3-4]", "a1-b3 a1-b4 a2-b3 a2-b4");
    HOSTS("a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4");
    /* Slurm's order for three groups: last fastest, then first, the middle slowest */
    HOSTS("r[1-2]c[1-2]n[1-2]", "r1c1n1 r1c1n2 r2c1n1 r2c1n2 r1c2n1 r1c2n2 r2c2n1 r2c2n2");
    HOSTS("a[1-2]b[1-2]c[1-2]d[1-2]", "a1b1c1d1 a1b1c1d2 a2b1c1d1 a2b1c1d2 a1b2c1d1 a1b2c1d2 a2b2c1d1 a2b2c1d2 "
                                       "a1b1c2d1 a1b1c2d2 a2b1c2d1 a2b1c2d2 a1b2c2d1 a1b2c2d2 a2b2c2d1 a2b2c2d2");
    HOSTS("x[1,3]y[5]z", "x1y5z x3y5z");
    HOSTS("[1-2][3-4]", "13 14 23 24");
    HOSTS("a[1-2]-b[3-4],c", "a1-b3 a1-b4 a2-b3 a2-b4 c");
}

static void suffix_after_brackets(void **state) {
    (void)state;
    HOSTS("n[1-3,7],gpu[01-02]-ib", "n1 n2 n3 n7 gpu01-ib gpu02-ib");
    HOSTS("n[1-2]-ib", "n1-ib n2-ib");
    HOSTS("[1-3]", "1 2 3");
    HOSTS("[7]x", "7x");
}

static void padding_follows_the_lower_bound(void **state) {
    (void)state;
    HOSTS("n[01-10]", "n01 n02 n03 n04 n05 n06 n07 n08 n09 n10");
    HOSTS("n[1-10]", "n1 n2 n3 n4 n5 n6 n7 n8 n9 n10");
    HOSTS("n[98-101]", "n98 n99 n100 n101");
    HOSTS("n[098-101]", "n098 n099 n100 n101");
    HOSTS("n[0-2]", "n0 n1 n2");
    HOSTS("n[00-02]", "n00 n01 n02");
    HOSTS("n[007]", "n007");
    HOSTS("n[0]", "n0");
    HOSTS("n[1-010]", "n1 n2 n3 n4 n5 n6 n7 n8 n9 n10");
    HOSTS("n[01-1]", "n01");
    HOSTS("n[0001-0003],m5,o[009-011]", "n0001 n0002 n0003 m5 o009 o010 o011");
}

static void padding_to_one_hundred(void **state) {
    char buf[1024];
    size_t len = 0, count = 0;
    cres_error err;
    (void)state;
    OK(cres_hostlist_expand("n[01-100]", buf, sizeof buf, &len, &count, &err));
    assert_int_equal(count, 100);
    assert_true(strncmp(buf, "n01\nn02\n", 8) == 0);
    HAS(buf, "\nn09\nn10\n");
    assert_string_equal(buf + len - 9, "n99\nn100\n");
}

static void eighteen_digits_are_enough(void **state) {
    (void)state;
    HOSTS("n[999999999999999999]", "n999999999999999999");
    HOSTS("n[999999999999999998-999999999999999999]", "n999999999999999998 n999999999999999999");
    HOSTS("n[000000000000000001-2]", "n000000000000000001 n000000000000000002");
    /* digits outside brackets are just text */
    HOSTS("n12345678901234567890123", "n12345678901234567890123");
}

static void duplicates_are_kept(void **state) {
    (void)state;
    HOSTS("n[1-2],n[2-3]", "n1 n2 n2 n3");
    HOSTS("n1,n1", "n1 n1");
    HOSTS("n[1,1]", "n1 n1");
    HOSTS("n[1-2,1-2]", "n1 n2 n1 n2");
}

static void order_is_kept(void **state) {
    (void)state;
    HOSTS("n[3,1,2]", "n3 n1 n2");
    HOSTS("z,a,m", "z a m");
    HOSTS("n[5-6,1-2]", "n5 n6 n1 n2");
}

static void empty_names_are_skipped(void **state) {
    (void)state;
    HOSTS("n1,,n2", "n1 n2");
    HOSTS(",n1", "n1");
    HOSTS("n1,", "n1");
    HOSTS(",,,n[1-2],,,", "n1 n2");
    HOSTS("", "");
    HOSTS(",,", "");
    HOSTS(" \t\n", "");
}

static void empty_list_has_no_hosts(void **state) {
    char buf[4] = "xyz";
    size_t len = 9, count = 9;
    cres_error err;
    (void)state;
    OK(cres_hostlist_expand("", buf, sizeof buf, &len, &count, &err));
    assert_string_equal(buf, "");
    assert_int_equal(len, 0);
    assert_int_equal(count, 0);
    len = 9;
    OK(cres_hostlist_expand(",", NULL, 0, &len, NULL, &err));
    assert_int_equal(len, 0);
}

static void other_characters_are_name_text(void **state) {
    (void)state;
    HOSTS("node_1.example.com", "node_1.example.com");
    HOSTS("n[1-2].cluster", "n1.cluster n2.cluster");
    HOSTS("10.0.0.[1-2]", "10.0.0.1 10.0.0.2");
}

/* ---------------------------------------------------------------------------------------
   Errors */

static void unclosed_bracket(void **state) {
    (void)state;
    BAD_LIST("n[1-3", "]");
    BAD_LIST("n[1-3,m5", "]");
    BAD_LIST("n[", "]");
    BAD_LIST("a,b,n[1-3", "]");
    BAD_LIST("n[1-2]-[3", "]");
}

static void nested_bracket(void **state) {
    (void)state;
    BAD_LIST("n[1[2]]", "bracket");
    BAD_LIST("n[[1-2]]", "bracket");
    BAD_LIST("n[1-2[3]", "bracket");
}

static void close_without_open(void **state) {
    (void)state;
    BAD_LIST("n1]", "]");
    BAD_LIST("n]1[", "]");
    BAD_LIST("]", "]");
    BAD_LIST("n[1-2]]", "]");
    BAD_LIST("a,b]", "]");
}

static void empty_or_malformed_range(void **state) {
    (void)state;
    BAD_LIST("n[]", "empty");
    BAD_LIST("n[1,]", "range");
    BAD_LIST("n[,1]", "range");
    BAD_LIST("n[1,,2]", "range");
    BAD_LIST("n[1-]", "range");
    BAD_LIST("n[-3]", "range");
    BAD_LIST("n[-]", "range");
    BAD_LIST("n[a-b]", "range");
    BAD_LIST("n[1-b]", "range");
    BAD_LIST("n[x]", "range");
    BAD_LIST("n[1-2-3]", "range");
    BAD_LIST("n[1--3]", "range");
    BAD_LIST("n[+1]", "range");
    BAD_LIST("n[1-+3]", "range");
    BAD_LIST("n[0x10]", "range");
    BAD_LIST("n[1 ,2]", "range");
    BAD_LIST("n[1, 2]", "range");
    BAD_LIST("n[ 1]", "range");
}

static void backwards_range(void **state) {
    (void)state;
    BAD_LIST("n[3-1]", "backwards");
    BAD_LIST("n[10-9]", "backwards");
    BAD_LIST("n[010-009]", "backwards");
    BAD_LIST("ok,n[1-2,5-4]", "backwards");
}

static void numbers_below_two_to_the_64(void **state) {
    (void)state;
    HOSTS("n[1000000000000000000]", "n1000000000000000000");
    HOSTS("n[0000000000000000001]", "n0000000000000000001");
    HOSTS("n[18446744073709551614]", "n18446744073709551614");
    HOSTS("n[0000000000000000000000000001-2]", "n0000000000000000000000000001 n0000000000000000000000000002");
    BAD_LIST("n[18446744073709551615]", "range");
    BAD_LIST("n[99999999999999999999999999]", "range");
    BAD_LIST("n[1-18446744073709551616]", "range");
}

/* The first bad name is reported even after good ones, and nothing half-expanded counts. */
static void error_after_good_names(void **state) {
    char buf[64];
    size_t count = 5;
    cres_error err;
    (void)state;
    EXPECT(cres_hostlist_expand("n1,n2,n[3", buf, sizeof buf, NULL, &count, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_int_equal(count, 0);
}

static void long_list_is_quoted_shortened(void **state) {
    char *list = repeat("node", 100, "", "]");
    cres_error err;
    (void)state;
    EXPECT(cres_hostlist_expand(list, NULL, 0, NULL, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "\"nodenode");
    assert_true(strlen(err.message) < 200);
    free(list);
}

static void control_characters_quoted_escaped(void **state) {
    cres_error err;
    (void)state;
    EXPECT(cres_hostlist_expand("n[\x01]", NULL, 0, NULL, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "\\x01");
}

static void null_arguments(void **state) {
    char buf[16];
    size_t len = 0, count = 0;
    cres_error err;
    (void)state;
    EXPECT(cres_hostlist_expand(NULL, buf, sizeof buf, &len, &count, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "NULL");
    EXPECT(cres_hostlist_expand(NULL, NULL, 0, &len, &count, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_hostlist_expand("n1", NULL, 5, &len, &count, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "NULL");
    /* err, out_len and out_count may be NULL */
    assert_int_equal(cres_hostlist_expand("n[1-2]", buf, sizeof buf, NULL, NULL, NULL), CRES_OK);
    assert_string_equal(buf, "n1\nn2\n");
    assert_int_equal(cres_hostlist_expand("n[", buf, sizeof buf, NULL, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
    assert_int_equal(cres_hostlist_expand(NULL, NULL, 0, NULL, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------
   Limits */

static void billion_hosts_fail_at_once(void **state) {
    (void)state;
    LIMIT_LIST("n[0-999999999]");
    LIMIT_LIST("n[0-999999999999999999]");
    LIMIT_LIST("a[0-999999999999999999]b[0-999999999999999999]c[0-999999999999999999]");
    LIMIT_LIST("n[1-999999999999999999,1-999999999999999999]");
}

static void limit_is_exact(void **state) {
    size_t len = 0, count = 0;
    cres_error err;
    (void)state;
    OK(cres_hostlist_expand("n[1-1000000]", NULL, 0, &len, &count, &err));
    assert_int_equal(count, CRES_MAX_HOSTLIST_HOSTS);
    /* "n" + number + "\n": 9 x 3 + 90 x 4 + 900 x 5 + 9000 x 6 + 90000 x 7 + 900000 x 8 + 1 x 9 */
    assert_int_equal(len, 27 + 360 + 4500 + 54000 + 630000 + 7200000 + 9);
    OK(cres_hostlist_expand("n[1-999999],last", NULL, 0, &len, &count, &err));
    assert_int_equal(count, CRES_MAX_HOSTLIST_HOSTS);
    LIMIT_LIST("n[0-1000000]");
    LIMIT_LIST("n[1-1000000],one");
    LIMIT_LIST("n[1-600000],m[1-400001]");
    LIMIT_LIST("n[1-500000],n[1-500000],x");
    LIMIT_LIST("n[1-1000000]-[1-2]");
}

/* The limit is decided over the whole list before anything is written. */
static void limit_before_writing(void **state) {
    char buf[32];
    size_t count = 9;
    cres_error err;
    (void)state;
    memset(buf, 'q', sizeof buf);
    EXPECT(cres_hostlist_expand("a,b,n[0-999999999]", buf, sizeof buf, NULL, &count, &err), CRES_ERR_LIMIT);
    HAS(err.message, "\"a,b,n[0-999999999]\"");
}

static void thousand_by_thousand(void **state) {
    size_t len = 0, count = 0, len2 = 0, count2 = 0;
    char *buf;
    cres_error err;
    (void)state;
    /* numbers 1..1000 have 9x1 + 90x2 + 900x3 + 1x4 = 2893 digits */
    OK(cres_hostlist_expand("a[1-1000]b[1-1000]", NULL, 0, &len, &count, &err));
    assert_int_equal(count, 1000000);
    assert_int_equal(len, 1000000 * 3 + 2893 * 1000 * 2);
    buf = (char *)malloc(len + 1);
    assert_non_null(buf);
    OK(cres_hostlist_expand("a[1-1000]b[1-1000]", buf, len + 1, &len2, &count2, &err));
    assert_int_equal(len2, len);
    assert_int_equal(count2, count);
    assert_true(strncmp(buf, "a1b1\na1b2\n", 10) == 0);
    assert_string_equal(buf + len - 21, "a1000b999\na1000b1000\n");
    assert_int_equal(strlen(buf), len);
    free(buf);
    EXPECT(cres_hostlist_expand("a[1-1000]b[1-1001]", NULL, 0, &len, &count, &err), CRES_ERR_LIMIT);
    EXPECT(cres_hostlist_expand("a[1-1000]b[1-1000],c", NULL, 0, &len, &count, &err), CRES_ERR_LIMIT);
}

static void million_commas_then_names(void **state) {
    char *list = repeat(",", 1000000, "", "n[1-2],m");
    char buf[32];
    size_t len = 0, count = 0;
    cres_error err;
    (void)state;
    OK(cres_hostlist_expand(list, buf, sizeof buf, &len, &count, &err));
    assert_string_equal(buf, "n1\nn2\nm\n");
    assert_int_equal(count, 3);
    assert_int_equal(len, 8);
    free(list);
    list = repeat(" \t\n", 1000000, "x", "y");
    OK(cres_hostlist_expand(list, buf, sizeof buf, &len, &count, &err));
    assert_string_equal(buf, "x\ny\n");
    free(list);
}

static void million_names(void **state) {
    char *list = repeat("n,", 1000000, "", "");
    size_t len = 0, count = 0;
    cres_error err;
    (void)state;
    OK(cres_hostlist_expand(list, NULL, 0, &len, &count, &err));
    assert_int_equal(count, 1000000);
    assert_int_equal(len, 2000000);
    free(list);
    list = repeat("n,", 1000000, "", "one_more");
    EXPECT(cres_hostlist_expand(list, NULL, 0, &len, &count, &err), CRES_ERR_LIMIT);
    free(list);
}

/* One bracket group with many ranges (a hostlist as long as the limit allows) must not take
   quadratic time. */
static void many_ranges_in_one_group(void **state) {
    char *list = repeat("7,", 999999, "n[", "7]");
    size_t len = 0, count = 0;
    cres_error err;
    (void)state;
    OK(cres_hostlist_expand(list, NULL, 0, &len, &count, &err));
    assert_int_equal(count, 1000000);
    assert_int_equal(len, 3000000);
    free(list);
}

/* ---------------------------------------------------------------------------------------
   The snprintf contract */

static void buffer_contract(void **state) {
    char buf[16];
    size_t len = 0, count = 0;
    cres_error err;
    (void)state;
    /* length query */
    OK(cres_hostlist_expand("n[1-3]", NULL, 0, &len, &count, &err));
    assert_int_equal(len, 9);
    assert_int_equal(count, 3);
    /* exact fit */
    memset(buf, 'x', sizeof buf);
    len = count = 0;
    OK(cres_hostlist_expand("n[1-3]", buf, 10, &len, &count, &err));
    assert_string_equal(buf, "n1\nn2\nn3\n");
    assert_int_equal(len, 9);
    assert_int_equal(count, 3);
    assert_int_equal(buf[10], 'x');
    /* one byte short: truncated, NUL-terminated, full length and count */
    memset(buf, 'x', sizeof buf);
    len = count = 0;
    EXPECT(cres_hostlist_expand("n[1-3]", buf, 9, &len, &count, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(err.result, CRES_ERR_BUFFER_TOO_SMALL);
    assert_true(err.message[0] != '\0');
    assert_string_equal(buf, "n1\nn2\nn3");
    assert_int_equal(buf[9], 'x');
    assert_int_equal(len, 9);
    assert_int_equal(count, 3);
    /* much too short */
    EXPECT(cres_hostlist_expand("n[1-3]", buf, 4, &len, &count, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_string_equal(buf, "n1\n");
    assert_int_equal(len, 9);
    EXPECT(cres_hostlist_expand("n[1-3]", buf, 1, &len, &count, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_string_equal(buf, "");
    /* a buffer with cap 0 is not written */
    buf[0] = 'z';
    EXPECT(cres_hostlist_expand("n[1-3]", buf, 0, &len, &count, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(buf[0], 'z');
    assert_int_equal(len, 9);
    assert_int_equal(count, 3);
}

/* Every cut of a longer output obeys the contract. */
static void every_buffer_size(void **state) {
    const char *list = "a[1-2]-b[08-10],c,gpu[01-02]-ib";
    char full[256], part[256];
    size_t len = 0, cap, l, c;
    cres_error err;
    (void)state;
    OK(cres_hostlist_expand(list, full, sizeof full, &len, NULL, &err));
    assert_string_equal(full, "a1-b08\na1-b09\na1-b10\na2-b08\na2-b09\na2-b10\nc\ngpu01-ib\ngpu02-ib\n");
    for (cap = 1; cap <= len + 1; cap++) {
        memset(part, '#', sizeof part);
        EXPECT(cres_hostlist_expand(list, part, cap, &l, &c, &err),
               cap > len ? CRES_OK : CRES_ERR_BUFFER_TOO_SMALL);
        assert_int_equal(l, len);
        assert_int_equal(c, 9);
        assert_int_equal(strlen(part), cap - 1 < len ? cap - 1 : len);
        assert_true(strncmp(part, full, strlen(part)) == 0);
        assert_int_equal(part[cap], '#');
    }
}

/* ---------------------------------------------------------------------------------------
   Tasks per node */

static void tasks_tf_table(void **state) {
    (void)state;
    COUNTS("2", 2);
    COUNTS("2,1,3", 2, 1, 3);
    COUNTS("3(x2),2,1", 3, 3, 2, 1);
    COUNTS("3(x2),2,11(x4)", 3, 3, 2, 11, 11, 11, 11);
    COUNTS("13(x10)", 13, 13, 13, 13, 13, 13, 13, 13, 13, 13);
    COUNTS("2(x2),1", 2, 2, 1);
    COUNTS("1(x3)", 1, 1, 1);
}

static void tasks_seen_under_slurm(void **state) {
    (void)state;
    COUNTS("4,2,1(x2)", 4, 2, 1, 1);
    COUNTS("2(x4)", 2, 2, 2, 2);
    COUNTS("3,1(x2)", 3, 1, 1);
    COUNTS("2,1", 2, 1);
    COUNTS("5,1(x3)", 5, 1, 1, 1);
    COUNTS("4", 4);
}

static void tasks_zero_and_bounds(void **state) {
    (void)state;
    COUNTS("0", 0);
    COUNTS("0(x3),1", 0, 0, 0, 1);
    COUNTS("1,0,2", 1, 0, 2);
    COUNTS("1000000", 1000000);
    COUNTS("007", 7);
    COUNTS("2(x01)", 2);
    COUNTS("0(x1)", 0);
}

static void tasks_spaces(void **state) {
    (void)state;
    COUNTS("2, 1", 2, 1);
    COUNTS(" 2 , 1 ", 2, 1);
    COUNTS("3(x2) ,1", 3, 3, 1);
    COUNTS("\t4\t", 4);
    BAD_COUNTS("2 1");
    BAD_COUNTS("3 (x2)");
    BAD_COUNTS("3( x2)");
    BAD_COUNTS("3(x 2)");
    BAD_COUNTS("3(x2 )");
    BAD_COUNTS(" ");
}

static void tasks_malformed(void **state) {
    (void)state;
    BAD_COUNTS("");
    BAD_COUNTS("2(x0)");
    BAD_COUNTS("(x0)");
    BAD_COUNTS("(x2)");
    BAD_COUNTS("2(x)");
    BAD_COUNTS("2x3");
    BAD_COUNTS("2(x3");
    BAD_COUNTS("2(3)");
    BAD_COUNTS("2(X3)");
    BAD_COUNTS("2(x3))");
    BAD_COUNTS("2(x3)x");
    BAD_COUNTS("2(x3)(x2)");
    BAD_COUNTS("2(x-1)");
    BAD_COUNTS("2(x+1)");
    BAD_COUNTS("-1");
    BAD_COUNTS("+2");
    BAD_COUNTS("a");
    BAD_COUNTS("2a");
    BAD_COUNTS("1.5");
    BAD_COUNTS("0x10");
    BAD_COUNTS("2;1");
    BAD_COUNTS("2\n1");
}

static void tasks_commas(void **state) {
    (void)state;
    BAD_COUNTS(",2");
    BAD_COUNTS("2,");
    BAD_COUNTS("2,,1");
    BAD_COUNTS(",");
    BAD_COUNTS("2, ,1");
}

static void tasks_overflow(void **state) {
    size_t n = 0;
    cres_error err;
    cres_result r;
    (void)state;
    BAD_COUNTS("99999999999");
    BAD_COUNTS("1000001");
    BAD_COUNTS("99999999999999999999999999999");
    BAD_COUNTS("4294967298");   /* 2^32 + 2: must not wrap to 2 */
    BAD_COUNTS("18446744073709551618"); /* 2^64 + 2 */
    BAD_COUNTS("2(x0)");
    /* a repeat factor past 1000000 breaks both the factor range and the entry limit: either
       code is right, success is not */
    r = cres_tasks_per_node_expand("2(x99999999999)", NULL, 0, &n, &err);
    assert_true(r == CRES_ERR_INVALID_ARGUMENT || r == CRES_ERR_LIMIT);
    r = cres_tasks_per_node_expand("2(x4294967297)", NULL, 0, &n, &err);
    assert_true(r == CRES_ERR_INVALID_ARGUMENT || r == CRES_ERR_LIMIT);
    r = cres_tasks_per_node_expand("2(x1000001)", NULL, 0, &n, &err);
    assert_true(r == CRES_ERR_INVALID_ARGUMENT || r == CRES_ERR_LIMIT);
}

static void tasks_message_quotes_text(void **state) {
    int counts[4];
    size_t n;
    cres_error err;
    (void)state;
    EXPECT(cres_tasks_per_node_expand("2(x)", counts, 4, &n, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "\"2(x)\"");
    EXPECT(cres_tasks_per_node_expand("2x3", counts, 4, &n, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "\"2x3\"");
    EXPECT(cres_tasks_per_node_expand("1(x1000000),1", NULL, 0, &n, &err), CRES_ERR_LIMIT);
    HAS(err.message, "\"1(x1000000),1\"");
}

static void tasks_count_query_and_short_array(void **state) {
    int counts[8];
    size_t n = 0, i;
    cres_error err;
    (void)state;
    OK(cres_tasks_per_node_expand("3(x2),2,11(x4)", NULL, 0, &n, &err));
    assert_int_equal(n, 7);
    for (i = 0; i < 8; i++) counts[i] = -1;
    OK(cres_tasks_per_node_expand("3(x2),2,11(x4)", counts, 7, &n, &err));
    assert_int_equal(n, 7);
    assert_int_equal(counts[6], 11);
    assert_int_equal(counts[7], -1);
    /* one short: BUFFER_TOO_SMALL, the full count, nothing past cap written */
    for (i = 0; i < 8; i++) counts[i] = -1;
    n = 0;
    EXPECT(cres_tasks_per_node_expand("3(x2),2,11(x4)", counts, 6, &n, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(err.result, CRES_ERR_BUFFER_TOO_SMALL);
    assert_true(err.message[0] != '\0');
    assert_int_equal(n, 7);
    assert_int_equal(counts[6], -1);
    for (i = 0; i < 8; i++) counts[i] = -1;
    EXPECT(cres_tasks_per_node_expand("3(x2),2,11(x4)", counts, 1, &n, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(counts[1], -1);
    assert_int_equal(n, 7);
    /* a bigger array is fine */
    OK(cres_tasks_per_node_expand("2,1", counts, 8, &n, &err));
    assert_int_equal(n, 2);
    assert_int_equal(counts[0], 2);
    assert_int_equal(counts[1], 1);
}

static void tasks_null_arguments(void **state) {
    int counts[4];
    size_t n;
    cres_error err;
    (void)state;
    EXPECT(cres_tasks_per_node_expand(NULL, counts, 4, &n, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "NULL");
    EXPECT(cres_tasks_per_node_expand(NULL, NULL, 0, &n, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_tasks_per_node_expand("2", NULL, 3, &n, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "NULL");
    assert_int_equal(cres_tasks_per_node_expand("2(x2)", counts, 4, NULL, NULL), CRES_OK);
    assert_int_equal(counts[1], 2);
    assert_int_equal(cres_tasks_per_node_expand("2(x)", counts, 4, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
}

static void tasks_limit(void **state) {
    int *counts;
    size_t n = 0;
    cres_error err;
    (void)state;
    OK(cres_tasks_per_node_expand("1(x1000000)", NULL, 0, &n, &err));
    assert_int_equal(n, 1000000);
    counts = (int *)malloc(1000000 * sizeof *counts);
    assert_non_null(counts);
    OK(cres_tasks_per_node_expand("1(x999999),5", counts, 1000000, &n, &err));
    assert_int_equal(counts[999998], 1);
    assert_int_equal(counts[999999], 5);
    free(counts);
    EXPECT(cres_tasks_per_node_expand("1(x1000000),1", NULL, 0, &n, &err), CRES_ERR_LIMIT);
    HAS(err.message, "1000000");
    EXPECT(cres_tasks_per_node_expand("1(x600000),2(x400001)", NULL, 0, &n, &err), CRES_ERR_LIMIT);
    EXPECT(cres_tasks_per_node_expand("1(x1000000),1(x1000000),1(x1000000)", NULL, 0, &n, &err), CRES_ERR_LIMIT);
}

/* A tasks-per-node list of many plain entries (a Slurm job on many nodes with uneven counts
   has no "(xN)" to shorten it) is read in linear time. */
static void tasks_many_entries(void **state) {
    char *text = repeat("2,1,", 250000, "", "3");
    size_t n = 0;
    cres_error err;
    (void)state;
    OK(cres_tasks_per_node_expand(text, NULL, 0, &n, &err));
    assert_int_equal(n, 500001);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tf_table),
        cmocka_unit_test(scontrol_outputs),
        cmocka_unit_test(reported_bug_classes),
        cmocka_unit_test(two_groups_twenty_two_hosts),
        cmocka_unit_test(whitespace_separates_names),
        cmocka_unit_test(several_bracket_groups),
        cmocka_unit_test(suffix_after_brackets),
        cmocka_unit_test(padding_follows_the_lower_bound),
        cmocka_unit_test(padding_to_one_hundred),
        cmocka_unit_test(eighteen_digits_are_enough),
        cmocka_unit_test(duplicates_are_kept),
        cmocka_unit_test(order_is_kept),
        cmocka_unit_test(empty_names_are_skipped),
        cmocka_unit_test(empty_list_has_no_hosts),
        cmocka_unit_test(other_characters_are_name_text),
        cmocka_unit_test(unclosed_bracket),
        cmocka_unit_test(nested_bracket),
        cmocka_unit_test(close_without_open),
        cmocka_unit_test(empty_or_malformed_range),
        cmocka_unit_test(backwards_range),
        cmocka_unit_test(numbers_below_two_to_the_64),
        cmocka_unit_test(error_after_good_names),
        cmocka_unit_test(long_list_is_quoted_shortened),
        cmocka_unit_test(control_characters_quoted_escaped),
        cmocka_unit_test(null_arguments),
        cmocka_unit_test(billion_hosts_fail_at_once),
        cmocka_unit_test(limit_is_exact),
        cmocka_unit_test(limit_before_writing),
        cmocka_unit_test(thousand_by_thousand),
        cmocka_unit_test(million_commas_then_names),
        cmocka_unit_test(million_names),
        cmocka_unit_test(many_ranges_in_one_group),
        cmocka_unit_test(buffer_contract),
        cmocka_unit_test(every_buffer_size),
        cmocka_unit_test(tasks_tf_table),
        cmocka_unit_test(tasks_seen_under_slurm),
        cmocka_unit_test(tasks_zero_and_bounds),
        cmocka_unit_test(tasks_spaces),
        cmocka_unit_test(tasks_malformed),
        cmocka_unit_test(tasks_commas),
        cmocka_unit_test(tasks_overflow),
        cmocka_unit_test(tasks_message_quotes_text),
        cmocka_unit_test(tasks_count_query_and_short_array),
        cmocka_unit_test(tasks_null_arguments),
        cmocka_unit_test(tasks_limit),
        cmocka_unit_test(tasks_many_entries),
    };
    return cmocka_run_group_tests_name("hostlist", tests, NULL, NULL);
}
