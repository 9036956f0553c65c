// SPDX-License-Identifier: GPL-2.0
/*
 * test_tc_nlfake.so - LD_PRELOAD helper for test_tc_cli.sh.
 *
 * Lets the real tc binary print a dcb qdisc/class without the kernel
 * module: dump requests for qdiscs (RTM_GETQDISC) and classes
 * (RTM_GETTCLASS) are not sent to the kernel; the next recvmsg() on that
 * socket returns the RTM_NEWQDISC / RTM_NEWTCLASS messages stored in the
 * file named by $DCB_FAKE_NL (written by "test_tc_parse --gen-nlmsg"),
 * followed by NLMSG_DONE. Everything else (link dumps, ...) goes to the
 * kernel unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

static struct {
	int		fd;		/* socket with a pending fake reply */
	unsigned char	*buf;
	size_t		len;
} pending = { .fd = -1 };

static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);

static void init(void)
{
	if (!real_sendmsg)
		real_sendmsg = dlsym(RTLD_NEXT, "sendmsg");
	if (!real_recvmsg)
		real_recvmsg = dlsym(RTLD_NEXT, "recvmsg");
}

static int append(unsigned char **buf, size_t *len, const void *data,
		  size_t n)
{
	unsigned char *p = realloc(*buf, *len + NLMSG_ALIGN(n));

	if (!p)
		return -1;
	memcpy(p + *len, data, n);
	memset(p + *len + n, 0, NLMSG_ALIGN(n) - n);
	*buf = p;
	*len += NLMSG_ALIGN(n);
	return 0;
}

/* Build the reply to a dump request for messages of type want. */
static int build_reply(int fd, int want, __u32 seq)
{
	const char *path = getenv("DCB_FAKE_NL");
	struct sockaddr_nl local = { 0 };
	socklen_t alen = sizeof(local);
	unsigned char msg[65536];
	struct nlmsghdr h;
	FILE *f;
	struct {
		struct nlmsghdr h;
		int err;
	} done;

	if (!path)
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	getsockname(fd, (struct sockaddr *)&local, &alen);

	free(pending.buf);
	pending.buf = NULL;
	pending.len = 0;
	while (fread(&h, sizeof(h), 1, f) == 1) {
		size_t body = NLMSG_ALIGN(h.nlmsg_len) - sizeof(h);

		if (h.nlmsg_len < sizeof(h) || NLMSG_ALIGN(h.nlmsg_len) > sizeof(msg) ||
		    fread(msg + sizeof(h), 1, body, f) != body)
			break;
		if (h.nlmsg_type != want)
			continue;
		h.nlmsg_seq = seq;
		h.nlmsg_pid = local.nl_pid;
		h.nlmsg_flags = NLM_F_MULTI;
		memcpy(msg, &h, sizeof(h));
		append(&pending.buf, &pending.len, msg, h.nlmsg_len);
	}
	fclose(f);

	memset(&done, 0, sizeof(done));
	done.h.nlmsg_len = sizeof(done);
	done.h.nlmsg_type = NLMSG_DONE;
	done.h.nlmsg_flags = NLM_F_MULTI;
	done.h.nlmsg_seq = seq;
	done.h.nlmsg_pid = local.nl_pid;
	append(&pending.buf, &pending.len, &done, sizeof(done));
	pending.fd = fd;
	return 0;
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	init();
	if (m && m->msg_iovlen >= 1 &&
	    m->msg_iov[0].iov_len >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr h;
		size_t total = 0;
		size_t i;

		memcpy(&h, m->msg_iov[0].iov_base, sizeof(h));
		for (i = 0; i < m->msg_iovlen; i++)
			total += m->msg_iov[i].iov_len;
		if ((h.nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP &&
		    (h.nlmsg_type == RTM_GETQDISC ||
		     h.nlmsg_type == RTM_GETTCLASS)) {
			int want = h.nlmsg_type == RTM_GETQDISC ?
				   RTM_NEWQDISC : RTM_NEWTCLASS;

			if (build_reply(fd, want, h.nlmsg_seq) == 0)
				return (ssize_t)total;
		}
	}
	return real_sendmsg(fd, m, flags);
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	size_t n;

	init();
	if (fd != pending.fd || !pending.buf)
		return real_recvmsg(fd, m, flags);

	n = pending.len;
	if (m->msg_iovlen < 1) {
		errno = EINVAL;
		return -1;
	}
	memcpy(m->msg_iov[0].iov_base, pending.buf,
	       n < m->msg_iov[0].iov_len ? n : m->msg_iov[0].iov_len);
	if (m->msg_name && m->msg_namelen >= sizeof(struct sockaddr_nl)) {
		struct sockaddr_nl k = { .nl_family = AF_NETLINK };

		memcpy(m->msg_name, &k, sizeof(k));
		m->msg_namelen = sizeof(k);
	}
	m->msg_flags = n > m->msg_iov[0].iov_len ? MSG_TRUNC : 0;
	if (!(flags & MSG_PEEK)) {
		free(pending.buf);
		pending.buf = NULL;
		pending.len = 0;
		pending.fd = -1;
	}
	return (ssize_t)n;
}
