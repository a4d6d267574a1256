/* The walk to a sink's directory (no link followed, no directory someone
 * else could change) and the atomic replace (owner, mode, hard links), in a
 * scratch directory under /tmp. */
#include "helpers.h"

#include "lib/atomic.h"
#include "lib/walk.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "scratch.h"

static void put(const char *rel, const char *text, mode_t mode)
{
    int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_int_equal(chmod(at(rel), mode), 0);
}

/* The refusal's text for path, in a static buffer. */
static const char *text_of(const char *path, const struct refusal *why)
{
    static char t[512];
    struct buf b = BUF_FIXED(t);
    t[0] = '\0';
    refusal_text(&b, path, why);
    return t;
}

static void walks_plain_dot_and_dotdot(void **state)
{
    (void)state;
    assert_int_equal(mkdir(at("a"), 0755), 0);
    assert_int_equal(mkdir(at("a/b"), 0755), 0);
    const char *name;
    struct refusal why;
    int fd = walk_parent(at("a/./b/../b//f"), 0, &name, &why);
    assert_true(fd >= 0);
    assert_string_equal(name, "f");
    struct stat got, want;
    assert_int_equal(fstat(fd, &got), 0);
    assert_int_equal(stat(at("a/b"), &want), 0);
    assert_true(got.st_ino == want.st_ino && got.st_dev == want.st_dev);
    walk_release(fd);
    /* no name, a missing directory, a file where a directory should be */
    assert_int_equal(walk_parent(at("a/b/"), 0, &name, &why), -EISDIR);
    assert_int_equal(walk_parent(at("a/missing/f"), 0, &name, &why), -ENOENT);
    put("a/file", "", 0644);
    assert_int_equal(walk_parent(at("a/file/f"), 0, &name, &why), -ENOTDIR);
}

static void refuses_a_link_anywhere_but_the_root(void **state)
{
    (void)state;
    assert_int_equal(mkdir(at("real"), 0755), 0);
    assert_int_equal(mkdir(at("real/d"), 0755), 0);
    assert_int_equal(symlink(at("real"), at("link")), 0);
    const char *name;
    struct refusal why;
    PATH_OF(path, "link/d/f");
    assert_int_equal(walk_parent(path, 0, &name, &why), -EPERM);
    assert_int_equal(why.kind, REFUSED_SYMLINK);
    char want[300];
    snprintf(want, sizeof want, "parent %s is a symlink", at("link"));
    assert_string_equal(text_of(path, &why), want);
    /* a link as the last directory, and a link to a directory further down */
    assert_int_equal(symlink(at("real/d"), at("real/dl")), 0);
    assert_int_equal(walk_parent(at("real/dl/f"), 0, &name, &why), -EPERM);
    assert_int_equal(why.len, strlen(at("real/dl")));
    /* --root is opened as given: the user chose it */
    int fd = walk_parent(path, strlen(at("link")), &name, &why);
    assert_true(fd >= 0);
    walk_release(fd);
}

static void refuses_a_directory_others_may_write(void **state)
{
    (void)state;
    assert_int_equal(mkdir(at("w"), 0755), 0);
    const char *name;
    PATH_OF(path, "w/f");
    struct refusal why;
    static const struct {
        mode_t mode;
        const char *text;
    } cases[] = { { 0777, "group and others (mode 0777)" },
                  { 0775, "group (mode 0775)" },
                  { 0703, "others (mode 0703)" } };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        assert_int_equal(chmod(at("w"), cases[i].mode), 0);
        assert_int_equal(walk_parent(path, 0, &name, &why), -EPERM);
        assert_int_equal(why.kind, REFUSED_WRITABLE);
        char want[300];
        snprintf(want, sizeof want, "parent %s is writable by %s", at("w"), cases[i].text);
        assert_string_equal(text_of(path, &why), want);
    }
    /* sticky, like /tmp: no one else can rename or remove what is ours */
    assert_int_equal(chmod(at("w"), 01777), 0);
    int fd = walk_parent(path, 0, &name, &why);
    assert_true(fd >= 0);
    walk_release(fd);
}

static void refuses_someone_elses_directory(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    assert_int_equal(mkdir(at("o"), 0755), 0);
    assert_int_equal(chown(at("o"), 12345, 12345), 0);
    const char *name;
    PATH_OF(path, "o/f");
    struct refusal why;
    assert_int_equal(walk_parent(path, 0, &name, &why), -EPERM);
    assert_int_equal(why.kind, REFUSED_OWNER);
    char want[300];
    snprintf(want, sizeof want, "parent %s is owned by uid 12345, not by root", at("o"));
    assert_string_equal(text_of(path, &why), want);
}

/* atomic_write of text to top/rel: 0, 1 or -errno; t for the details. */
static int replace(const char *rel, const char *text, struct target *t)
{
    int e = target_open(t, at(rel), 0);
    if (e == 0)
        e = atomic_write(t, text, strlen(text));
    target_close(t);
    return e;
}

static void replace_keeps_owner_and_mode(void **state)
{
    (void)state;
    struct target t;
    put("kept", "old\n", 0600);
    if (geteuid() == 0)
        assert_int_equal(chown(at("kept"), 12345, 12346), 0);
    struct stat before, after;
    assert_int_equal(stat(at("kept"), &before), 0);
    assert_int_equal(replace("kept", "new\n", &t), 0);
    assert_int_equal(stat(at("kept"), &after), 0);
    assert_true(after.st_ino != before.st_ino); /* replaced, not written in place */
    assert_int_equal(after.st_mode & 07777, 0600);
    assert_int_equal(after.st_uid, before.st_uid);
    assert_int_equal(after.st_gid, before.st_gid);
    /* a new file: the writer's, 0644 whatever the umask */
    mode_t old = umask(077);
    assert_int_equal(replace("fresh", "x\n", &t), 0);
    umask(old);
    assert_int_equal(stat(at("fresh"), &after), 0);
    assert_int_equal(after.st_mode & 07777, 0644);
    assert_int_equal(after.st_uid, geteuid());
    assert_int_equal(after.st_gid, getegid());
}

static void refuses_a_file_with_other_links(void **state)
{
    (void)state;
    struct target t;
    put("linked", "old\n", 0600);
    assert_int_equal(link(at("linked"), at("other")), 0);
    assert_int_equal(replace("linked", "new\n", &t), -EPERM);
    assert_int_equal(t.why.kind, REFUSED_LINKS);
    assert_string_equal(text_of(t.path, &t.why),
                        "it has 2 hard links; replacing it would split them");
    struct stat a, b;
    assert_int_equal(stat(at("linked"), &a), 0);
    assert_int_equal(stat(at("other"), &b), 0);
    assert_true(a.st_ino == b.st_ino && a.st_nlink == 2);
    /* what it already holds needs no write, so nothing is refused */
    assert_int_equal(replace("linked", "old\n", &t), 1);
}

/* WALK_SHARED_DIR (the record's directory, an emptyDir): the file's own
 * directory may be writable by others, sticky or not; the ones above it may
 * not, and its owner must still be root or us. */
static void shared_dir_for_the_file_alone(void **state)
{
    (void)state;
    assert_int_equal(mkdir(at("s"), 0755), 0);
    assert_int_equal(mkdir(at("s/d"), 0777), 0);
    assert_int_equal(chmod(at("s/d"), 0777), 0);
    const char *name;
    struct refusal why;
    PATH_OF(path, "s/d/f");
    assert_int_equal(walk_parent(path, 0, &name, &why), -EPERM);
    assert_int_equal(why.kind, REFUSED_WRITABLE);
    int fd = walk_parent_flags(path, 0, WALK_SHARED_DIR, &name, &why);
    assert_true(fd >= 0);
    assert_string_equal(name, "f");
    walk_release(fd);
    /* through the O_PATH way too (a trailing slash in the path) */
    PATH_OF(path2, "s/d//f");
    fd = walk_parent_flags(path2, 0, WALK_SHARED_DIR, &name, &why);
    assert_true(fd >= 0);
    walk_release(fd);
    /* an ancestor others may write to: still refused */
    assert_int_equal(chmod(at("s"), 0777), 0);
    assert_int_equal(walk_parent_flags(path, 0, WALK_SHARED_DIR, &name, &why), -EPERM);
    assert_int_equal(why.kind, REFUSED_WRITABLE);
    assert_int_equal(why.len, strlen(at("s")));
    assert_int_equal(chmod(at("s"), 0755), 0);
    /* a link as the file's directory: refused */
    assert_int_equal(symlink("d", at("s/l")), 0);
    PATH_OF(path3, "s/l/f");
    assert_int_equal(walk_parent_flags(path3, 0, WALK_SHARED_DIR, &name, &why), -EPERM);
    assert_int_equal(why.kind, REFUSED_SYMLINK);
    if (geteuid() != 0)
        return;
    /* someone else's, even shared: refused */
    assert_int_equal(chown(at("s/d"), 12345, 12345), 0);
    assert_int_equal(walk_parent_flags(path, 0, WALK_SHARED_DIR, &name, &why), -EPERM);
    assert_int_equal(why.kind, REFUSED_OWNER);
}

/* own_file (the record): a new inode of the writer's, 0644, whatever was at
 * the name: another user's file with another link planted in a shared
 * directory is replaced, the other name keeps its old contents; unchanged
 * only when the file is already the writer's own. */
static void own_file_is_always_a_new_inode_of_ours(void **state)
{
    (void)state;
    assert_int_equal(mkdir(at("e"), 0777), 0);
    assert_int_equal(chmod(at("e"), 0777), 0);
    put("e/rec", "same\n", 0666);
    assert_int_equal(link(at("e/rec"), at("e/planted")), 0);
    if (geteuid() == 0)
        assert_int_equal(chown(at("e/rec"), 12345, 12345), 0);
    struct target t;
    assert_int_equal(target_open_flags(&t, at("e/rec"), 0, WALK_SHARED_DIR), 0);
    t.no_sync = t.own_file = true;
    /* the same bytes, but not ours alone: written */
    assert_int_equal(atomic_write(&t, "same\n", 5), 0);
    struct stat a, b;
    assert_int_equal(stat(at("e/rec"), &a), 0);
    assert_int_equal(stat(at("e/planted"), &b), 0);
    assert_true(a.st_ino != b.st_ino);
    assert_int_equal(a.st_nlink, 1);
    assert_int_equal(a.st_mode & 07777, 0644);
    assert_int_equal(a.st_uid, geteuid());
    /* now ours: unchanged */
    assert_int_equal(atomic_write(&t, "same\n", 5), 1);
    /* a leftover temporary name is stepped over: the names are fresh */
    char n1[320], n2[320];
    target_temp_name(&t, n1, sizeof n1);
    target_temp_name(&t, n2, sizeof n2);
    assert_string_not_equal(n1, n2);
    assert_int_equal(strncmp(n1, ".rec.nccl-init-", 15), 0);
    assert_int_equal(atomic_write(&t, "new\n", 4), 0);
    target_close(&t);
    /* without own_file the links are refused, as before */
    put("e/x", "a\n", 0644);
    assert_int_equal(link(at("e/x"), at("e/y")), 0);
    assert_int_equal(target_open_flags(&t, at("e/x"), 0, WALK_SHARED_DIR), 0);
    assert_int_equal(atomic_write(&t, "b\n", 2), -EPERM);
    target_close(&t);
}

/* Every walk checks afresh: a directory that turned writable by others
 * since the last walk is refused by the next (no walk is kept for later). */
static void every_walk_checks_afresh(void **state)
{
    (void)state;
    assert_int_equal(mkdir(at("c"), 0755), 0);
    assert_int_equal(mkdir(at("c/d"), 0755), 0);
    const char *name;
    struct refusal why;
    int fd = walk_parent(at("c/d/f"), 0, &name, &why);
    assert_true(fd >= 0);
    assert_string_equal(name, "f");
    walk_release(fd);
    assert_true(fcntl(fd, F_GETFD) < 0); /* closed */
    assert_int_equal(chmod(at("c/d"), 0777), 0);
    assert_int_equal(walk_parent(at("c/d/g"), 0, &name, &why), -EPERM);
    assert_int_equal(why.kind, REFUSED_WRITABLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(walks_plain_dot_and_dotdot, make_top, remove_top),
        cmocka_unit_test_setup_teardown(every_walk_checks_afresh, make_top, remove_top),
        cmocka_unit_test_setup_teardown(shared_dir_for_the_file_alone, make_top, remove_top),
        cmocka_unit_test_setup_teardown(own_file_is_always_a_new_inode_of_ours, make_top, remove_top),
        cmocka_unit_test_setup_teardown(refuses_a_link_anywhere_but_the_root, make_top, remove_top),
        cmocka_unit_test_setup_teardown(refuses_a_directory_others_may_write, make_top, remove_top),
        cmocka_unit_test_setup_teardown(refuses_someone_elses_directory, make_top, remove_top),
        cmocka_unit_test_setup_teardown(replace_keeps_owner_and_mode, make_top, remove_top),
        cmocka_unit_test_setup_teardown(refuses_a_file_with_other_links, make_top, remove_top),
    };
    return cmocka_run_group_tests_name("walk", tests, NULL, NULL);
}
