/* SPDX-License-Identifier: Apache-2.0 */
/*
 * events.c - how each CPython audit event is judged.
 *
 * One table serves every supported version: event names do not collide
 * across versions, and the version-specific argument shapes (os.open's
 * missing dir_fd, open(fd), fchmod's int path, 3.12's start_new_thread vs
 * 3.13's start_joinable_thread, 3.14's ctypes.call_function on every
 * foreign call and _posixsubprocess.fork_exec) are handled where the
 * arguments are read, in py_policy.c and hook.c. The hook consults it only
 * while a context is live.
 */
#include "parts.h"

#include <string.h>

#define ALLOW(n) {n, FA_EV_ALLOW, FA_OP_WRITE, -1, -1, 0}
#define PATH(n, c, op, d1, d2) {n, c, op, d1, d2, 0}
/* may put a link on a path or move a directory (moves.c) */
#define MOVE(n, c, op, d1, d2) {n, c, op, d1, d2, FA_MOVES_LINK}
/* starts a process */
#define START(n, c) {n, c, FA_OP_WRITE, -1, -1, FA_MOVES_START}

static const struct fa_evinfo table[] = {
    ALLOW("array.__new__"), ALLOW("builtins.breakpoint"), ALLOW("builtins.id"),
    ALLOW("builtins.input"), ALLOW("builtins.input/result"),
    ALLOW("code.__new__"),
    ALLOW("compile"), ALLOW("cpython.run_interactivehook"), ALLOW("exec"),
    ALLOW("function.__new__"), ALLOW("glob.glob"), ALLOW("glob.glob/2"),
    {"import", FA_EV_IMPORT, FA_OP_WRITE, -1, -1, 0}, ALLOW("mmap.__new__"),
    ALLOW("object.__delattr__"),
    ALLOW("object.__getattr__"), START("os.fork", FA_EV_ALLOW),
    START("os.forkpty", FA_EV_ALLOW),
    ALLOW("os.fwalk"), ALLOW("os.getxattr"), ALLOW("os.listdir"),
    ALLOW("os.listdrives"), ALLOW("os.listmounts"), ALLOW("os.listvolumes"),
    ALLOW("os.listxattr"), ALLOW("os.lockf"), ALLOW("os.scandir"),
    ALLOW("os.walk"), ALLOW("pathlib.Path.glob"),
    ALLOW("pathlib.Path.rglob"), ALLOW("pathlib.Path.walk"), ALLOW("pdb.Pdb"),
    ALLOW("pickle.find_class"), ALLOW("resource.prlimit"),
    ALLOW("resource.setrlimit"), ALLOW("setopencodehook"),
    ALLOW("socket.__new__"), ALLOW("socket.getaddrinfo"),
    ALLOW("socket.gethostbyaddr"), ALLOW("socket.gethostbyname"),
    ALLOW("socket.gethostname"), ALLOW("socket.getnameinfo"),
    ALLOW("socket.getservbyname"), ALLOW("socket.getservbyport"),
    ALLOW("sqlite3.connect/handle"), ALLOW("sqlite3.enable_load_extension"),
    ALLOW("sys._current_exceptions"), ALLOW("sys._current_frames"),
    ALLOW("sys._getframe"), ALLOW("sys._getframemodulename"),
    /*
     * CPython raises the singular spelling (the documentation says
     * "hooks"); asyncio.run() needs it inside a context.
     */
    ALLOW("sys.set_asyncgen_hook_finalizer"),
    ALLOW("sys.set_asyncgen_hook_firstiter"),
    ALLOW("sys.set_asyncgen_hooks_finalizer"),
    ALLOW("sys.set_asyncgen_hooks_firstiter"),
    ALLOW("sys.setprofile"), ALLOW("sys.settrace"),
    ALLOW("syslog.closelog"), ALLOW("syslog.openlog"),
    ALLOW("syslog.setlogmask"),
    ALLOW("syslog.syslog"), ALLOW("time.sleep"), ALLOW("urllib.Request"),
    ALLOW("webbrowser.open"),
    ALLOW("winreg.ConnectRegistry"), ALLOW("winreg.EnumKey"),
    ALLOW("winreg.EnumValue"),
    ALLOW("winreg.ExpandEnvironmentStrings"), ALLOW("winreg.OpenKey"),
    ALLOW("winreg.OpenKey/result"), ALLOW("winreg.PyHKEY.Detach"),
    ALLOW("winreg.QueryInfoKey"), ALLOW("winreg.QueryReflectionKey"),
    ALLOW("winreg.QueryValue"),

    /* path, ..., dir_fd: the dir_fd argument index follows the op */
    PATH("os.chflags", FA_EV_FIRST, FA_OP_ATTR, -1, -1),
    PATH("os.chmod", FA_EV_FIRST, FA_OP_ATTR, 2, -1),
    PATH("os.chown", FA_EV_FIRST, FA_OP_ATTR, 3, -1),
    PATH("os.mkdir", FA_EV_FIRST, FA_OP_CREATE, 2, -1),
    PATH("os.remove", FA_EV_FIRST, FA_OP_REMOVE, 1, -1),
    PATH("os.removexattr", FA_EV_FIRST, FA_OP_ATTR, -1, -1),
    PATH("os.rmdir", FA_EV_FIRST, FA_OP_REMOVE, 1, -1),
    PATH("os.setxattr", FA_EV_FIRST, FA_OP_ATTR, -1, -1),
    /* raised by the functions unaudited.c puts in their place */
    PATH("os.mkfifo", FA_EV_FIRST, FA_OP_CREATE, 2, -1),
    PATH("os.mknod", FA_EV_FIRST, FA_OP_CREATE, 3, -1),
    /* times are a change, as the shim judges utimensat: like os.chmod */
    PATH("os.utime", FA_EV_FIRST, FA_OP_ATTR, 3, -1),
    PATH("shutil.chown", FA_EV_FIRST, FA_OP_ATTR, -1, -1),
    PATH("shutil.make_archive", FA_EV_FIRST, FA_OP_WRITE, -1, -1),
    PATH("shutil.rmtree", FA_EV_FIRST, FA_OP_REMOVE, 1, -1),
    PATH("sqlite3.connect", FA_EV_FIRST, FA_OP_WRITE, -1, -1),
    PATH("tempfile.mkdtemp", FA_EV_FIRST, FA_OP_CREATE, -1, -1),
    PATH("tempfile.mkstemp", FA_EV_FIRST, FA_OP_CREATE, -1, -1),

    PATH("shutil.copyfile", FA_EV_DST, FA_OP_WRITE, -1, -1),
    PATH("shutil.copymode", FA_EV_DST, FA_OP_ATTR, -1, -1),
    PATH("shutil.copystat", FA_EV_DST, FA_OP_ATTR, -1, -1),
    PATH("shutil.copytree", FA_EV_DST, FA_OP_CREATE, -1, -1),
    PATH("sqlite3.load_extension", FA_EV_DST, FA_OP_WRITE, -1, -1),
    /* the archive is only read; what matters is the directory written into */
    PATH("shutil.unpack_archive", FA_EV_DST, FA_OP_DIR, -1, -1),

    MOVE("os.link", FA_EV_BOTH, FA_OP_LINK, 2, 3),
    MOVE("os.rename", FA_EV_BOTH, FA_OP_RENAME, 2, 3),
    MOVE("os.symlink", FA_EV_BOTH, FA_OP_SYMLINK, 2, 2),
    MOVE("shutil.move", FA_EV_BOTH, FA_OP_RENAME, -1, -1),

    PATH("open", FA_EV_OPEN, FA_OP_WRITE, -1, -1),
    PATH("os.chdir", FA_EV_CHDIR, FA_OP_CHDIR, -1, -1),
    PATH("os.truncate", FA_EV_TRUNCATE, FA_OP_WRITE, -1, -1),
    PATH("object.__setattr__", FA_EV_SETATTR, FA_OP_WRITE, -1, -1),
    PATH("os.putenv", FA_EV_ENV, FA_OP_WRITE, -1, -1),
    PATH("os.unsetenv", FA_EV_ENV, FA_OP_WRITE, -1, -1),
    PATH("_thread.start_new_thread", FA_EV_THREAD, FA_OP_WRITE, -1, -1),
    PATH("_thread.start_joinable_thread", FA_EV_THREAD, FA_OP_WRITE, -1, -1),

    /* what subprocess.Popen does next: its start, or another one */
    START("_posixsubprocess.fork_exec", FA_EV_SPAWN),
    START("os.posix_spawn", FA_EV_SPAWN),
    START("os.posix_spawnp", FA_EV_SPAWN),
    /* refused unless the host allows them, as any event not listed */
    START("os.system", FA_EV_OTHER),
    START("subprocess.Popen", FA_EV_OTHER),
    /* native code may do anything, a process start included */
    {"ctypes.call_function", FA_EV_NATIVE, FA_OP_WRITE, -1, -1,
     FA_MOVES_LINK | FA_MOVES_START},
};

#define NTABLE (sizeof table / sizeof table[0])

/* Families allowed as a whole; "audit_perms." is handled as FA_EV_INTERNAL. */
#define PREFIX(s) {s, sizeof(s) - 1}
static const struct {
    const char *s;
    size_t len;
} allow_prefix[] = {
    PREFIX("fcntl."), PREFIX("ftplib."), PREFIX("gc."), PREFIX("imaplib."),
    PREFIX("marshal."), PREFIX("poplib."), PREFIX("smtplib."),
};

static const struct fa_evinfo internal = {"audit_perms.", FA_EV_INTERNAL,
                                          FA_OP_WRITE, -1, -1, 0};
static const struct fa_evinfo prefixed = {"", FA_EV_ALLOW, FA_OP_WRITE, -1,
                                          -1, 0};
static const struct fa_evinfo other = {"", FA_EV_OTHER, FA_OP_WRITE, -1, -1,
                                       0};

/*
 * Every event raised inside a context is looked up here, so the table is
 * hashed once (FNV-1a over the name, open addressing, at most half full)
 * and a lookup is one short hash and, usually, one strcmp.
 */
#define NSLOT 512
_Static_assert(NTABLE * 2 <= NSLOT, "event hash table more than half full");
static const struct fa_evinfo *slots[NSLOT];
static int hashed;

static unsigned
hash_name(const char *s)
{
    unsigned h = 2166136261u;

    while (*s) {
        h = (h ^ (unsigned char)*s++) * 16777619u;
    }
    return h;
}

static void
build(void)
{
    size_t i;
    unsigned j;

    for (i = 0; i < NTABLE; i++) {
        for (j = hash_name(table[i].name) % NSLOT; slots[j];
             j = (j + 1) % NSLOT)
        {
            ;
        }
        slots[j] = &table[i];
    }
    hashed = 1;
}

const struct fa_evinfo *
fa_event_lookup(const char *event)
{
    unsigned j;
    size_t i;

    if (!hashed) {
        build();
    }
    for (j = hash_name(event) % NSLOT; slots[j]; j = (j + 1) % NSLOT) {
        if (!strcmp(slots[j]->name, event)) {
            return slots[j];
        }
    }
    if (!strncmp(event, "audit_perms.", 12)) {
        return &internal;
    }
    /* unlisted events are often refused in a loop: no strlen per prefix */
    for (i = 0; i < sizeof allow_prefix / sizeof allow_prefix[0]; i++) {
        if (event[0] == allow_prefix[i].s[0]
            && !strncmp(event, allow_prefix[i].s, allow_prefix[i].len))
        {
            return &prefixed;
        }
    }
    return &other;
}

/*
 * object.__setattr__ fires only for a fixed set of sensitive assignments.
 * These keep working (dataclasses, namedtuple, class decorators need
 * them); rebinding a function's code or keyword defaults, or a type's
 * __type_params__, does not.
 */
int
fa_setattr_allowed(const char *name)
{
    static const char *const ok[] = {
        "__name__", "__qualname__", "__bases__", "__class__",
        "__defaults__", "__doc__", "__module__",
    };
    size_t i;

    for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (!strcmp(name, ok[i])) {
            return 1;
        }
    }
    return 0;
}

/*
 * Variables that steer command lookup, imports, dynamic loading, the
 * environment's identity, shells and temporary directories. key is
 * already upper-cased.
 */
int
fa_env_sensitive(const char *key)
{
    static const char *const names[] = {
        "PATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH",
        "DYLD_INSERT_LIBRARIES",
        "LD_PRELOAD", "LD_AUDIT", "VIRTUAL_ENV", "CONDA_PREFIX", "HOME",
        "USER", "LOGNAME", "SHELL", "TMPDIR", "TEMP", "TMP",
    };
    /* FA_: the policy fa-run hands to children travels in the environment */
    static const char *const prefixes[] = {"PYTHON", "PIP_", "UV_", "FA_"};
    size_t i;

    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!strcmp(key, names[i])) {
            return 1;
        }
    }
    for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        if (!strncmp(key, prefixes[i], strlen(prefixes[i]))) {
            return 1;
        }
    }
    return 0;
}
