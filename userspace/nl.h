/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: generic netlink transport on libmnl.
 *
 * One socket per run. Requests are built with nl_msg(), sent with
 * nl_request() (doit) or nl_dump() (dumpit); replies go to a libmnl data
 * callback. The kernel's extack message of the last request is kept in
 * nl->ext_msg.
 */
#ifndef FTCTL_NL_H
#define FTCTL_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

struct nlattr;
struct nlmsghdr;

/* A multicast group of the family, from CTRL_CMD_GETFAMILY. */
struct nl_group {
	char name[32];		/* GENL_NAMSIZ */
	uint32_t id;
};

#define NL_MAX_GROUPS	8

struct nl {
	struct mnl_socket *sk;
	uint32_t portid;
	uint32_t seq;
	uint16_t family;	/* genl family id, from CTRL_CMD_GETFAMILY */
	uint32_t version;	/* genl family version the kernel reports */
	uint8_t req_version;	/* genl version put in our requests */
	char *tx;		/* request buffer */
	char *rx;		/* receive buffer, grown to the largest message */
	size_t rx_size;
	struct nl_group groups[NL_MAX_GROUPS];
	unsigned int ngroups;
	bool dump_intr;		/* the last streamed dump was flagged
				 * NLM_F_DUMP_INTR */
	char ext_msg[256];	/* extack message of the last request, or "" */
	uint32_t ext_offs;	/* extack: offset of the attribute it blames, */
	bool has_ext_offs;	/* counted from the start of the request */
	uint64_t ext_min;	/* extack: the range the blamed attribute's */
	uint64_t ext_max;	/* policy allows (NLMSGERR_ATTR_POLICY) */
	bool has_ext_range;
	bool kernel_err;	/* the last error came from the kernel */
};

/*
 * Open the socket and resolve @family_name; requests will carry @version.
 * Returns 0, or -errno: -ENOENT when the family is not registered (module
 * not loaded).
 */
int nl_open(struct nl *nl, const char *family_name, uint8_t version);
void nl_close(struct nl *nl);

/* Start a request for @cmd in nl->tx. @flags adds to NLM_F_REQUEST. */
struct nlmsghdr *nl_msg(struct nl *nl, uint8_t cmd, uint16_t flags);

/*
 * Send @nlh (with NLM_F_ACK added) and run @cb on every reply until the
 * kernel's ack. Returns 0 or -errno; nl->kernel_err tells whether the error
 * came from the kernel (with nl->ext_msg, if it sent one) or from parsing.
 */
int nl_request(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

/*
 * Send @nlh as a dump and run @cb on every message until NLMSG_DONE. If the
 * kernel flags the dump as interrupted (NLM_F_DUMP_INTR: the set changed
 * while it was read), @reset is called to drop what was collected and the
 * dump is restarted, a few times at most; then -EINTR is returned.
 */
int nl_dump(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
	    void (*reset)(void *data), void *data);

/*
 * Send @nlh as a dump and run @cb on every message until NLMSG_DONE, as
 * the messages arrive, for output that is printed as it is read. There is
 * no restart: a message flagged NLM_F_DUMP_INTR is still handed to @cb,
 * and nl->dump_intr tells the caller that the kernel flagged the dump.
 */
int nl_dump_stream(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data);

/*
 * Join the family's multicast group @name. Returns 0, -ENOENT when the
 * family has no such group (an older module), or -errno.
 */
int nl_subscribe(struct nl *nl, const char *name);

/*
 * Read one datagram of multicast events without blocking and run @cb on
 * each message of the family in it. Returns 0, -EAGAIN when nothing is
 * queued, -ENOBUFS when the socket overran (events were lost; the socket
 * stays usable), or another -errno.
 */
int nl_recv_events(struct nl *nl, mnl_cb_t cb, void *data);

/* The socket's file descriptor, to poll() on. */
int nl_fd(const struct nl *nl);

/*
 * The type of the top-level request attribute that the kernel's extack
 * blamed (NLMSGERR_ATTR_OFFS) in the last request, or 0.
 */
uint16_t nl_blamed_attr(const struct nl *nl);

/* Parse the attributes after the genl header of a reply. */
int nl_parse(const struct nlmsghdr *nlh, mnl_attr_cb_t cb, void *data);

/* For reply callbacks: flag a malformed reply (EBADMSG) and stop. */
int nl_bad_reply(void);

/*
 * True when @attr is a type the caller knows (1 .. @max). Reply parsers
 * skip the others: a newer kernel may send attributes we do not know.
 */
bool nl_attr_known(const struct nlattr *attr, uint16_t max);

/* A u64 counter: 8 bytes (or 4, should the kernel ever shrink it). */
bool nl_attr_is_uint(const struct nlattr *attr);
uint64_t nl_attr_get_uint(const struct nlattr *attr);

#endif /* FTCTL_NL_H */
