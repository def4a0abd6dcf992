/* SPDX-License-Identifier: Apache-2.0 */
/*
 * supervise.c - fa-run as the parent of its command.
 *
 * The floor, when there is one, is applied in the child just before the
 * exec, so fa-run itself stays outside it and outlives the command: it can
 * pass the command's status on and, at exit, say what only it can know:
 * how many calls the preload denied in the whole run (the tally every
 * process of the run adds to, counts.h), and, under the floor, this: Refusals the kernel
 * makes for code the preload cannot see (a static program, a system call
 * made without libc) reach the program as EACCES and nobody else: when the
 * command fails and no preload of the run reported a denial, the failure
 * may be one of them, and fa-run says so once. When it succeeds (or is
 * killed by a signal), nothing says a refusal made a difference to it;
 * when the preload reported denials, they are the likely cause and were
 * said already; when the kernel's audit records named the floor's
 * refusals, each was said as it came.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floor/landlock.h"
#include "run/audit_log.h"
#include "run/learn.h"

#ifndef HAVE_CLOSE_RANGE
#include <sys/syscall.h>
/* A libc without close_range() (musl): the kernel's own (Linux 5.9). */
static int close_range(unsigned int first, unsigned int last, int flags)
{
	return (int)syscall(SYS_close_range, first, last, flags);
}
#endif

static volatile pid_t child;

/*
 * Signals someone sent to fa-run go on to the command. Ones the terminal
 * sent (SI_KERNEL) reached the command's process group already.
 */
static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (child > 0 && si->si_code <= 0)
		kill(child, sig);
}

static const int forwarded[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH, SIGCONT,
};

/*
 * One line when anything was denied: how much, of which kind, and where to
 * read more. Returns how many denials the preloads of the run reported
 * (every one is said where it happens, unless --quiet); 0 when not counted.
 */
static uint64_t summary(const struct fa_watch *w)
{
	uint64_t paths, execs, reported, all;

	if (!w->counts)
		return 0;
	paths = __atomic_load_n(&w->counts->paths, __ATOMIC_ACQUIRE);
	execs = __atomic_load_n(&w->counts->execs, __ATOMIC_ACQUIRE);
	reported = __atomic_load_n(&w->counts->reported, __ATOMIC_ACQUIRE);
	all = paths + execs;
	if (!all)
		return 0;
	fprintf(stderr, "fa-run: %llu %s (%llu path%s, %llu exec%s)",
		(unsigned long long)all,
		reported == all ? (all == 1 ? "call would be denied" : "calls would be denied") :
				  (all == 1 ? "denial" : "denials"),
		(unsigned long long)paths, paths == 1 ? "" : "s",
		(unsigned long long)execs, execs == 1 ? "" : "s");
	if (w->log)
		fprintf(stderr, "; see %s\n", w->log);
	else
		fputs("; --log FILE keeps them as JSON lines\n", stderr);
	return all;
}

/*
 * The floor's refusals by name, where the kernel's audit records can be
 * read: listening starts before the command does. 1 when listening.
 */
static int floor_records(struct fa_audit *au, const struct fa_floor *f,
			 const struct fa_watch *w)
{
	char why[256];
	int on;

	au->fd = -1;
	au->enabled = 0;
	if (!f)
		return 0;
	on = fa_audit_open(au, f->abi, why, sizeof(why));
	au->quiet = w->quiet;
	au->log = w->log;
	au->verbose = w->verbose;
	return on;
}

/* Under --verbose, at exit: were the floor's refusals named, or why not. */
static void floor_records_said(const struct fa_audit *au, const struct fa_floor *f,
			       const struct fa_watch *w)
{
	if (!f || !w->verbose)
		return;
	if (au->enabled == 1)
		fprintf(stderr, "fa-run: the kernel floor's refusals were named from the audit log "
			"(%lu)\n", au->named);
	else
		fprintf(stderr, "fa-run: the kernel floor's refusals could not be named: %s\n",
			au->why);
}

/* What fa-run says when the command has ended. */
static void said_at_exit(const struct fa_audit *au, const struct fa_floor *f,
			 const struct fa_watch *w, const char *command, int status)
{
	uint64_t denied = 0;

	if (w->learn)
		fa_learn_report(w->learn);
	else if (!w->quiet)
		denied = summary(w);
	floor_records_said(au, f, w);
	/*
	 * A refused call shows as a failure exit; signals and fa-run's own
	 * 125-127 do not. Said only when nothing else explains the failure:
	 * no denial reported by a preload (each was said, the floor's refusal
	 * of a call the preload allowed too), and no audit records naming the
	 * floor's refusals as they came.
	 */
	if (f && au->enabled != 1 && !w->quiet && !denied && WIFEXITED(status) &&
	    WEXITSTATUS(status) > 0 && WEXITSTATUS(status) < 125)
		fprintf(stderr, "fa-run: %s failed under the kernel floor: calls the preload did "
			"not see (static programs, direct system calls, io_uring) may have been "
			"refused by the kernel with EACCES and no message\n", command);
}

/*
 * Close every descriptor above stderr but keep and keep2 (-1: none): the
 * one --learn's record arrives in, and the floor's audit records.
 */
static void keep_only(int keep, int keep2)
{
	int lo = keep < keep2 ? keep : keep2, hi = keep < keep2 ? keep2 : keep;
	unsigned from = 3;

	if (lo >= 3) {
		if (lo > 3)
			(void)close_range(3, (unsigned)lo - 1, 0);
		from = (unsigned)lo + 1;
	}
	if (hi >= 3 && hi != lo) {
		if ((unsigned)hi > from)
			(void)close_range(from, (unsigned)hi - 1, 0);
		from = (unsigned)hi + 1;
	}
	(void)close_range(from, ~0U, 0);
}

/* waitpid(pid, status, 0), naming the floor's refusals meanwhile when au listens. */
static int wait_command(struct fa_audit *au, pid_t pid, int *status)
{
	if (au->fd >= 0)
		return fa_audit_wait(au, pid, status);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

void fa_floor_run(struct fa_floor *f, char **argv, const struct fa_watch *w)
{
	struct fa_audit au;
	struct sigaction sa;
	char msg[512];
	size_t i;
	int status, err, null;
	pid_t pid, self = getpid();

	floor_records(&au, f, w);
	fflush(NULL);
	/*
	 * vfork: the child only makes system calls on its own credentials
	 * (no_new_privs, the ruleset) and execs; copying fa-run's address space
	 * would cost more than everything else the floor adds to a start.
	 */
	pid = vfork();
	if (pid < 0) {
		fprintf(stderr, "fa-run: cannot start %s: %s\n", argv[0], strerror(errno));
		exit(125);
	}
	if (pid == 0) {
		struct fa_floor mine; /* the parent's copy stays as it is */

		/* Killing fa-run kills the command, as when fa-run became it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != self)
			_exit(125);
		if (f)
			mine = *f;
		if (f && fa_floor_enforce(&mine, msg, sizeof(msg)) < 0) {
			(void)!write(2, "fa-run: ", 8);
			(void)!write(2, msg, strlen(msg));
			(void)!write(2, "\n", 1);
			_exit(125);
		}
		execvp(argv[0], argv);
		err = errno;
		snprintf(msg, sizeof(msg), "fa-run: %s: %s\n", argv[0], strerror(err));
		(void)!write(2, msg, strlen(msg));
		_exit(err == ENOENT ? 127 : 126);
	}
	if (f) {
		close(f->ruleset);
		f->ruleset = -1;
	}
	/*
	 * Hold no pipe open behind the command's back: a reader of its stdout
	 * (or of any descriptor it inherited) must see the end when the command
	 * closes it, not when fa-run exits. Stderr stays, for the exit note.
	 */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (null > 2)
			close(null);
	}
	/* The tally stays mapped; its descriptor is the command's now. */
	keep_only(w->learn ? w->learn->fd : -1, au.fd);
	child = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
	if (wait_command(&au, pid, &status) < 0) {
		fprintf(stderr, "fa-run: waiting for %s: %s\n", argv[0], strerror(errno));
		exit(125);
	}
	said_at_exit(&au, f, w, argv[0], status);
	if (WIFSIGNALED(status)) {
		struct rlimit none = { 0, 0 };
		int sig = WTERMSIG(status);
		sigset_t set;

		/* Die the same way, so that a shell sees what killed the command. */
		setrlimit(RLIMIT_CORE, &none); /* the command dumped its own core */
		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
		exit(128 + sig);
	}
	exit(WEXITSTATUS(status));
}
