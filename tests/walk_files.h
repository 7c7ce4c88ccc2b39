/* The files the scenarios of an allocation-failure test read (hostfiles, resource configs,
   service-account files): written once, before the walks, into a temporary directory of
   the group, and removed with it at the group's end. Written with the system allocator, so
   the walks count none of it. Include after alloc_walk.h, with _XOPEN_SOURCE 700 defined
   first (mkdtemp, unlink, rmdir). */
#ifndef WALK_FILES_H
#define WALK_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The size of every path buffer here: the directory's and each file's. */
#define WALK_PATH_SIZE 128

/* A file of the directory: its name there and its text; once made, its path is in `path`
   (WALK_PATH_SIZE bytes), which the scenarios name. */
typedef struct walk_file {
    char *path;
    const char *name;
    const char *text;
} walk_file;

/* A group setup: the directory `dir` (WALK_PATH_SIZE bytes) made from `tmpl` (mkdtemp's
   form, ending in XXXXXX), holding the n files. -1 when the directory cannot be made or a
   path does not fit. */
static int walk_files_make(char *dir, const char *tmpl, const walk_file *files, size_t n) {
    size_t i;
    snprintf(dir, WALK_PATH_SIZE, "%s", tmpl);
    if (!mkdtemp(dir)) return -1;
    for (i = 0; i < n; i++) {
        int len = snprintf(files[i].path, WALK_PATH_SIZE, "%s/%s", dir, files[i].name);
        if (len < 0 || len >= WALK_PATH_SIZE) return -1;
        write_file(files[i].path, files[i].text);
    }
    return 0;
}

/* The group teardown: the files, then the directory (its result is the teardown's). */
static int walk_files_remove(const char *dir, const walk_file *files, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) unlink(files[i].path);
    return rmdir(dir);
}

#endif
