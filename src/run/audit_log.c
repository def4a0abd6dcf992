/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit_log.c - naming what the kernel floor refused, from the kernel's
 * own records.
 *
 * Landlock (ABI 7) writes an audit record for each refusal: the domain
 * that refused, the access it lacked ("fs.make_reg") and the object
 * (the directory an entry would be made in, or the file). They reach
 * readers of the audit log's multicast group (AUDIT_NLGRP_READLOG, with
 * CAP_AUDIT_READ) only while the audit subsystem is on. One event is
 * several records with one serial: the refusal (1423), the domain's
 * first record when it is new (1424, naming the process that made it),
 * the system call (1300: pid, program), and an end marker (1320). The
 * event is named when it ends, if its domain is one the command made:
 * records of other programs on the machine pass by unread.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include "linux_abi.h"
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "denial.h"
#include "run/audit_log.h"

/* Older headers lack the Landlock record types (Linux 6.15). */
#define REC_LANDLOCK_ACCESS 1423
#define REC_LANDLOCK_DOMAIN 1424
#define REC_SYSCALL 1300
#define REC_EOE 1320
#define REC_LISTENER 1335
/* The longest record the kernel sends (its MAX_AUDIT_MESSAGE_LENGTH). */
#define RECORD_MAX 8970

/* The audit records of one event, until its end marker. */
static struct event {
	unsigned long long serial;
	struct timespec when;
	int access;                 /* a refusal was among them */
	uint64_t domain;
	char blockers[64];
	char path[PATH_MAX];
	int pid;
	char exe[PATH_MAX];
	int succeeded;              /* the system call's record says it succeeded */
} ev;

int fa_audit_open(struct fa_audit *a, int abi, char *why, size_t len)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK, .nl_groups = AUDIT_NLGRP_READLOG };

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->enabled = -1;
	memset(&ev, 0, sizeof(ev));
	if (abi < 7) {
		snprintf(a->why, sizeof(a->why), "Landlock ABI %d writes no audit records (7 does)", abi);
		goto no;
	}
	a->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (a->fd < 0) {
		snprintf(a->why, sizeof(a->why), "no audit log to read: %s", strerror(errno));
		goto no;
	}
	if (bind(a->fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		snprintf(a->why, sizeof(a->why), "reading the audit log needs CAP_AUDIT_READ (%s)",
			 strerror(errno));
		close(a->fd);
		a->fd = -1;
		goto no;
	}
	return 1;
no:
	a->enabled = 0;
	snprintf(why, len, "%s", a->why);
	return 0;
}

/*
 * With the subsystem off the kernel writes no record at all. Joining the
 * log group is itself recorded when it is on, so fa-run's own record
 * says so; without it, only the kernel can say, and it answers from a
 * thread it starts for the purpose, which takes milliseconds: asked only
 * when the answer matters (below).
 */
static void ask(struct fa_audit *a)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr h;
		struct audit_status st;
	} req;

	if (a->fd < 0)
		return;
	a->asked = 1;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = AUDIT_GET;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	if (sendto(a->fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		snprintf(a->why, sizeof(a->why), "cannot ask whether the audit subsystem is on: %s",
			 strerror(errno));
		a->enabled = 0;
	}
}

/* The kernel's answer to ask(), or its refusal. */
static void answer(struct fa_audit *a, const struct nlmsghdr *h)
{
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(h);

		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)) || !e->error)
			return;
		snprintf(a->why, sizeof(a->why), "cannot ask whether the audit subsystem is on: %s",
			 strerror(-e->error));
		a->enabled = 0;
		return;
	}
	if (h->nlmsg_len < NLMSG_LENGTH(offsetof(struct audit_status, enabled) + 4))
		return;
	a->enabled = ((const struct audit_status *)NLMSG_DATA(h))->enabled != 0;
	if (!a->enabled)
		snprintf(a->why, sizeof(a->why),
			 "the audit subsystem is off (auditctl -e 1 turns it on)");
}

/* The value of key= in a record: quoted text, or hex for text with unusual bytes. */
static int field(const char *s, size_t n, const char *key, char *out, size_t len)
{
	size_t k = strlen(key), i, o = 0;
	const char *end = s + n, *v = NULL, *p;

	for (p = s; p + k < end; p++)
		if ((p == s || p[-1] == ' ') && !memcmp(p, key, k) && p[k] == '=') {
			v = p + k + 1;
			break;
		}
	if (!v || !len)
		return 0;
	if (v < end && *v == '"') {
		for (v++; v < end && *v != '"' && o + 1 < len; v++)
			out[o++] = *v;
	} else {
		for (i = 0; v + i < end && v[i] != ' ' && o + 1 < len; i++)
			out[o++] = v[i];
	}
	out[o] = '\0';
	return 1;
}

static void unhex(char *s)
{
	size_t n = strlen(s), i;

	if (!n || n % 2 || strspn(s, "0123456789ABCDEFabcdef") != n)
		return;
	for (i = 0; i < n / 2; i++) {
		char two[3] = { s[2 * i], s[2 * i + 1], 0 };

		s[i] = (char)strtoul(two, NULL, 16);
	}
	s[n / 2] = '\0';
}

/* pid is the command or one of its descendants (still there to ask). */
static int ours(const struct fa_audit *a, long pid)
{
	char path[64], buf[512], *p;
	int depth;
	FILE *f;

	for (depth = 0; depth < 64 && pid > 1; depth++) {
		if (pid == a->child)
			return 1;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "re");
		if (!f)
			return 0;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		/* the parent follows the command name, which may hold anything but ") " */
		p = p ? strrchr(buf, ')') : NULL;
		if (!p || sscanf(p, ") %*c %ld", &pid) != 1)
			return 0;
	}
	return 0;
}

static int known(const struct fa_audit *a, uint64_t d)
{
	int i;

	for (i = 0; i < a->ndomains; i++)
		if (a->domains[i] == d)
			return 1;
	return 0;
}

/* One refusal, as the preload's are: the stderr line and the --log JSON line. */
static void name(struct fa_audit *a)
{
	char fix[PATH_MAX + 256], line[3 * PATH_MAX], obj[4 * PATH_MAX], json[4 * PATH_MAX + 32];
	struct fa_buf fb = FA_BUF_INIT(fix), lb = FA_BUF_INIT(line), ob = FA_BUF_INIT(obj);
	struct fa_buf jb = FA_BUF_INIT(json);
	struct fa_denial_view v, w;
	char entry[PATH_MAX + 2];
	int fd;

	memset(&v, 0, sizeof(v));
	v.when = ev.when;
	v.pid = ev.pid;
	v.call = ev.blockers;
	v.path = ev.path[0] ? ev.path : NULL;
	v.flags = v.mode = -1;
	v.rule = "landlock";
	v.reason = "refused by the kernel floor, for a call the preload did not see "
		   "(made without libc, by a static program, through io_uring)";
	v.enforced = 1;
	v.caller = ev.exe[0] ? ev.exe : NULL;
	/* the floor allows what the roots allow: its fix is the roots' */
	w = v;
	w.rule = "outside-roots";
	w.resolved = v.path;
	/* making or removing an entry names the directory: the root is that directory */
	if (v.path && (!strncmp(ev.blockers, "fs.make_", 8) || !strncmp(ev.blockers, "fs.remove_", 10) ||
		       !strcmp(ev.blockers, "fs.refer"))) {
		snprintf(entry, sizeof(entry), "%s/", v.path);
		w.resolved = entry;
	}
	if (v.path && fa_denial_fix(&fb, &w) && fa_buf_fits(&fb))
		v.fix = fix;
	a->named++;
	if (!a->quiet) {
		fa_denial_text(&lb, &v);
		fa_putc(&lb, '\n');
		(void)!write(2, line, strlen(line));
	}
	if (!a->log)
		return;
	/* the preload's JSON line, led by the layer that refused */
	fa_denial_json(&ob, &v);
	fa_puts(&jb, "{\"layer\":\"landlock\",");
	fa_puts(&jb, obj + 1);
	fa_putc(&jb, '\n');
	fd = open(a->log, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd >= 0) {
		(void)!write(fd, json, strlen(json));
		close(fd);
	}
}

static void end_event(struct fa_audit *a)
{
	/*
	 * A check the kernel makes and then ignores is recorded too: O_CREAT on
	 * a file that exists (through /dev/fd/N, say) asks for make_reg in its
	 * directory, and the open succeeds. Only what failed is a refusal.
	 */
	if (ev.access && known(a, ev.domain) && !ev.succeeded)
		name(a);
	memset(&ev, 0, sizeof(ev));
}

void fa_audit_record(struct fa_audit *a, int type, const char *text, size_t len)
{
	unsigned long long sec = 0, ms = 0, serial = 0;
	char val[PATH_MAX];
	const char *rest;

	if (sscanf(text, "audit(%llu.%llu:%llu)", &sec, &ms, &serial) != 3)
		return;
	rest = memchr(text, ')', len);
	if (!rest)
		return;
	len -= (size_t)(rest - text);
	if (ev.serial && serial != ev.serial)
		end_event(a);
	ev.serial = serial;
	ev.when.tv_sec = (time_t)sec;
	ev.when.tv_nsec = (long)ms * 1000000;
	switch (type) {
	case REC_LANDLOCK_ACCESS:
		ev.access = 1;
		if (field(rest, len, "domain", val, sizeof(val)))
			ev.domain = strtoull(val, NULL, 16);
		field(rest, len, "blockers", ev.blockers, sizeof(ev.blockers));
		if (field(rest, len, "path", ev.path, sizeof(ev.path)) && rest[0] &&
		    !strstr(rest, "path=\""))
			unhex(ev.path);
		break;
	case REC_LANDLOCK_DOMAIN: {
		uint64_t d;

		if (!field(rest, len, "domain", val, sizeof(val)))
			break;
		d = strtoull(val, NULL, 16);
		if (field(rest, len, "status", val, sizeof(val)) && !strcmp(val, "allocated")) {
			if (field(rest, len, "pid", val, sizeof(val)) && ours(a, atol(val)) &&
			    !known(a, d) && a->ndomains < FA_AUDIT_NDOMAINS) {
				a->domains[a->ndomains++] = d;
				a->live++;
			}
		} else if (!strcmp(val, "deallocated") && known(a, d) && a->live > 0) {
			a->live--;
		}
		break;
	}
	case REC_LISTENER:
		/*
		 * fa-run's own joining: the first says the subsystem is on; the
		 * second listener's, that everything queued before it has come.
		 */
		if (field(rest, len, "pid", val, sizeof(val)) && atol(val) == (long)getpid() &&
		    field(rest, len, "op", val, sizeof(val)) && !strcmp(val, "connect")) {
			if (a->armed)
				a->barrier = 1;
			else
				a->enabled = 1;
		}
		break;
	case REC_SYSCALL:
		if (field(rest, len, "pid", val, sizeof(val)))
			ev.pid = atoi(val);
		if (field(rest, len, "success", val, sizeof(val)))
			ev.succeeded = !strcmp(val, "yes");
		if (field(rest, len, "exe", ev.exe, sizeof(ev.exe)) && !strstr(rest, "exe=\""))
			unhex(ev.exe);
		break;
	case REC_EOE:
		end_event(a);
		break;
	}
}

/* NLMSG_OK without its compare of the unsigned length with an int. */
static int msg_ok(const struct nlmsghdr *h, int left)
{
	return left >= (int)sizeof(*h) && h->nlmsg_len >= sizeof(*h) && h->nlmsg_len <= (unsigned)left;
}

/* Everything the socket holds now. */
static void drain(struct fa_audit *a)
{
	char buf[RECORD_MAX] __attribute__((aligned(8)));
	char rec[RECORD_MAX + 1];
	struct nlmsghdr *h;
	ssize_t n;
	int left;

	for (;;) {
		n = recv(a->fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		left = (int)n;
		for (h = (struct nlmsghdr *)buf; msg_ok(h, left); h = NLMSG_NEXT(h, left)) {
			size_t tl = h->nlmsg_len - NLMSG_HDRLEN;

			if (h->nlmsg_type == AUDIT_GET || h->nlmsg_type == NLMSG_ERROR) {
				answer(a, h);
				continue;
			}
			if (tl > RECORD_MAX)
				continue;
			memcpy(rec, NLMSG_DATA(h), tl);
			rec[tl] = '\0';
			fa_audit_record(a, h->nlmsg_type, rec, strlen(rec));
		}
	}
}

int fa_audit_wait(struct fa_audit *a, pid_t pid, int *status)
{
	struct pollfd p[2];
	int pidfd, waited, r;

	a->child = pid;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		/* no pidfd (before 5.3): the records that are there at exit */
		while (waitpid(pid, status, 0) < 0)
			if (errno != EINTR)
				return -1;
	} else {
		p[0].fd = pidfd;
		p[0].events = POLLIN;
		p[1].fd = a->fd;
		p[1].events = POLLIN;
		for (;;) {
			r = poll(p, 2, -1);
			if (r < 0 && errno != EINTR) {
				close(pidfd);
				return -1;
			}
			if (r > 0 && (p[1].revents & POLLIN))
				drain(a);
			if (r > 0 && p[0].revents) {
				r = (int)waitpid(pid, status, WNOHANG);
				if (r == pid)
					break;
				if (r < 0 && errno != EINTR) {
					close(pidfd);
					return -1;
				}
			}
		}
		close(pidfd);
	}
	/*
	 * The kernel sends records from a thread of its own: those of the last
	 * refusals may come after the exit. A second listener joining makes
	 * the kernel queue a record of its own behind them; when it arrives,
	 * everything before it has. (Bounded, should the kernel drop it.)
	 * Whether the subsystem is on is asked only when fa-run's own record
	 * has not come and the answer changes what fa-run says: the command
	 * failed (the note at exit), or --verbose.
	 */
	p[0].fd = a->fd;
	p[0].events = POLLIN;
	drain(a);
	if (a->enabled < 0 && (a->verbose || (WIFEXITED(*status) && WEXITSTATUS(*status) > 0 &&
					      WEXITSTATUS(*status) < 125)))
		ask(a);
	for (waited = 0; a->enabled < 0 && a->asked && waited < 2000; waited += 50)
		if (poll(p, 1, 50) > 0)
			drain(a);
	if (a->enabled == 1) {
		struct sockaddr_nl me = { .nl_family = AF_NETLINK, .nl_groups = AUDIT_NLGRP_READLOG };
		int second = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);

		a->barrier = 0;
		a->armed = 1;
		if (second >= 0 && bind(second, (struct sockaddr *)&me, sizeof(me)) == 0)
			for (waited = 0; !a->barrier && waited < 2000; waited += 50)
				if (poll(p, 1, 50) > 0)
					drain(a);
		if (second >= 0)
			close(second);
	}
	if (a->enabled < 0 && a->asked) {
		snprintf(a->why, sizeof(a->why), "the audit subsystem did not answer");
		a->enabled = 0;
	}
	end_event(a);
	return 0;
}
