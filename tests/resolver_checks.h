/* Checks of what a resolver answers, shared by the environment backends' unit tests
   (test_hpc.c, test_launch.c, test_platforms.c, test_sched.c; their environment is
   tests/env_table.h): a create call that must fail, the whole launch info, the master,
   devices, GPUs and own task, and the backend auto picks. Failures name the test's line
   (the *_at helpers and their macros). Each helper is TEST_HELPER: a file that does not
   use one is not warned about it. Include with _POSIX_C_SOURCE 200809L defined first.
   tests/fuzz/fixture_seeds.py replays these helpers with the tests that call them. */
#ifndef CRES_RESOLVER_CHECKS_H
#define CRES_RESOLVER_CHECKS_H

#include "test_util.h"
#include "env_table.h"

#include <unistd.h>

/* ---------------------------------------------------------------------------------------
   Failures */

/* A call that must fail with `want`, its message naming sub1 and sub2 (NULL: not checked). */
TEST_HELPER void expect_error_at(cres_result got, const cres_error *err, cres_result want,
                                 const char *sub1, const char *sub2, int line) {
    if (got != want)
        fail_msg("line %d: got %s, want %s: %s", line, cres_result_string(got),
                 cres_result_string(want), err->message);
    if (err->result != want) fail_msg("line %d: err.result is %d", line, (int)err->result);
    if (sub1 && !strstr(err->message, sub1))
        fail_msg("line %d: \"%s\" does not contain \"%s\"", line, err->message, sub1);
    if (sub2 && !strstr(err->message, sub2))
        fail_msg("line %d: \"%s\" does not contain \"%s\"", line, err->message, sub2);
}

/* A create call that must fail with `want`, hand back no resolver and name sub1 and sub2. */
TEST_HELPER void expect_failure(cres_result got, cres_resolver *r, const cres_error *err,
                                cres_result want, const char *sub1, const char *sub2, int line) {
    if (got == CRES_OK) cres_resolver_free(r); /* so that a failure here leaks nothing */
    expect_error_at(got, err, want, sub1, sub2, line);
    if (r) fail_msg("line %d: a resolver came back on failure", line);
}

/* r_ starts as a sentinel, so that a create that fails without clearing it is caught. */
#define FAILS_WITH(create_fn, opts, want, sub1, sub2)                                      \
    do {                                                                                   \
        static int sentinel_;                                                              \
        cres_resolver *r_ = (cres_resolver *)(void *)&sentinel_;                           \
        cres_error e_;                                                                     \
        cres_result g_ = create_fn(&(opts), &r_, &e_);                                     \
        expect_failure(g_, r_, &e_, (want), (sub1), (sub2), __LINE__);                    \
    } while (0)

/* ---------------------------------------------------------------------------------------
   The launch info */

/* The whole launch info, field by field. */
TEST_HELPER void expect_info_at(const cres_launch_info *got, int world, int rank, int local_rank,
                                int local_world, int node_rank, int num_nodes, const char *host,
                                int port, const char *address, int line) {
#define FIELD(name, want)                                                                   \
    if (got->name != (want)) fail_msg("line %d: " #name " is %d, want %d", line, got->name, (want))
    FIELD(world_size, world);
    FIELD(rank, rank);
    FIELD(local_rank, local_rank);
    FIELD(local_world_size, local_world);
    FIELD(node_rank, node_rank);
    FIELD(num_nodes, num_nodes);
    FIELD(master_port, port);
#undef FIELD
    if (strcmp(got->master_host, host) != 0)
        fail_msg("line %d: master_host is \"%s\", want \"%s\"", line, got->master_host, host);
    if (strcmp(got->master_address, address) != 0)
        fail_msg("line %d: master_address is \"%s\", want \"%s\"", line, got->master_address,
                 address);
}

#define INFO_IS(info, ...) expect_info_at(&(info), __VA_ARGS__, __LINE__)

/* cres_launch() must succeed and give exactly this. */
TEST_HELPER void expect_launch_at(cres_resolver *r, int world, int rank, int local_rank,
                                  int local_world, int node_rank, int num_nodes, const char *host,
                                  int port, const char *address, int line) {
    cres_launch_info info;
    cres_error err;
    cres_result got;
    memset(&info, 0x5a, sizeof info); /* nothing may be left as it was */
    got = cres_launch(r, &info, &err);
    if (got != CRES_OK)
        fail_msg("line %d: cres_launch: %s: %s", line, cres_result_string(got), err.message);
    expect_info_at(&info, world, rank, local_rank, local_world, node_rank, num_nodes, host, port,
                   address, line);
}

#define LAUNCH_IS(r, ...) expect_launch_at((r), __VA_ARGS__, __LINE__)

/* ---------------------------------------------------------------------------------------
   What a resolver answers. The strings come from static buffers, two per helper where a
   test compares two answers in one call; the lengths reported must be the strings'. */

TEST_HELPER const char *resolved_json(cres_resolver *r) {
    static char buf[2][8192];
    static int next;
    char *out = buf[next++ % 2];
    cres_cluster_spec *s = NULL;
    cres_error err;
    OK(cres_resolve(r, &s, &err));
    OK(cres_spec_to_json(s, out, sizeof buf[0], NULL, &err));
    cres_spec_free(s);
    return out;
}

TEST_HELPER const char *master_of(cres_resolver *r, const char *type, int id, const char *rpc) {
    static char buf[2][512];
    static int next;
    char *out = buf[next++ % 2];
    size_t len = 9999;
    cres_error err;
    OK(cres_master_of(r, type, id, rpc, out, sizeof buf[0], &len, &err));
    assert_int_equal(len, strlen(out));
    return out;
}

TEST_HELPER const char *own_master(cres_resolver *r) {
    static char buf[512];
    cres_error err;
    size_t len = 9999;
    OK(cres_master(r, buf, sizeof buf, &len, &err));
    assert_int_equal(len, strlen(buf));
    return buf;
}

TEST_HELPER const char *devices_of(cres_resolver *r, const char *type, int id) {
    static char buf[2][512];
    static int next;
    char *out = buf[next++ % 2];
    size_t len = 9999;
    cres_error err;
    OK(cres_visible_devices_of(r, type, id, out, sizeof buf[0], &len, &err));
    assert_int_equal(len, strlen(out));
    return out;
}

/* The GPU count per task: 0 when the resolver reports no accelerator. */
TEST_HELPER int gpus_of(cres_resolver *r) {
    cres_accelerators acc;
    cres_error err;
    OK(cres_num_accelerators(r, &acc, &err));
    if (acc.count == 0) return 0;
    assert_int_equal(acc.count, 1);
    assert_string_equal(acc.items[0].type, "GPU");
    assert_true(acc.items[0].count > 0);
    return acc.items[0].count;
}

TEST_HELPER void expect_task(cres_resolver *r, const char *type, int id) {
    assert_non_null(cres_task_type(r));
    assert_string_equal(cres_task_type(r), type);
    assert_int_equal(cres_task_id(r), id);
}

/* ---------------------------------------------------------------------------------------
   Auto-detection over cfg */

TEST_HELPER cres_auto_options auto_options(void) {
    cres_auto_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

/* The resolver auto picks with o, which must be the backend want_name. */
TEST_HELPER cres_resolver *auto_with(cres_auto_options o, const char *want_name) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_auto_resolver_create(&o, &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), want_name);
    return r;
}

TEST_HELPER void expect_auto(const char *want_name) {
    cres_resolver_free(auto_with(auto_options(), want_name));
}

/* Auto-detection looks for SageMaker's resource config in the real file system (no hook):
   on a machine that has one, the backends after SageMaker cannot be detected. */
TEST_HELPER int on_sagemaker_machine(void) {
    return access("/opt/ml/input/config/resourceconfig.json", F_OK) == 0;
}

TEST_HELPER void skip_on_sagemaker_machine(void) {
    if (on_sagemaker_machine()) skip();
}

#endif
