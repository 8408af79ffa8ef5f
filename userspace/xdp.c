// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: the XDP tier's program on devices (see xdp.h).
 *
 * The pins are the state: what "show" and "save" read needs no libbpf.
 * Attaching needs the program, which the build embeds as a bpftool
 * skeleton where clang, bpftool and libbpf are there (FTCTL_XDP);
 * without it "xdp on" says so. The program is attached in driver mode
 * only: in generic mode it would run after the skb is built, where the
 * skb tier already is, and gain nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <linux/fasttrack.h>
#include <linux/fasttrack_xdp.h>
#include <linux/magic.h>

#include "link.h"
#include "print.h"
#include "state.h"
#include "xdp.h"

#ifdef FTCTL_XDP
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "fasttrack_xdp.skel.h"
#endif

#define BPFFS		"/sys/fs/bpf"
/* Where PID 1 sees it: from inside "ip netns exec", which remounts /sys. */
#define BPFFS_INIT	"/proc/1/root" BPFFS
#define PIN_SUBDIR	"fasttrack"

const char *const ft_xdp_blocked_names[] = {
	"tap", "tc", "netfilter", "qdisc", "xfrm", "qos-map", "netpoll",
	"port", "stacked", NULL
};

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && (unsigned long)st.f_type == BPF_FS_MAGIC;
}

/* Whether this process shares PID 1's mount namespace (or cannot tell). */
static bool init_mount_ns(void)
{
	struct stat self, init;

	if (stat("/proc/self/ns/mnt", &self) || stat("/proc/1/ns/mnt", &init))
		return true;
	return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}

/*
 * The bpffs the pins live in. A bpffs mounted in a private mount
 * namespace (ip netns exec makes one per command) would go, and the
 * program with it, when the command exits: there, PID 1's is used.
 * @mount: mount one at /sys/fs/bpf if PID 1's namespace has none.
 */
static int bpffs_root(const char **root, bool mount_it)
{
	if (is_bpffs(BPFFS)) {
		*root = BPFFS;
		return 0;
	}
	if (!init_mount_ns()) {
		if (is_bpffs(BPFFS_INIT)) {
			*root = BPFFS_INIT;
			return 0;
		}
		return -ENOENT;
	}
	if (!mount_it)
		return -ENOENT;
	if (mount("bpf", BPFFS, "bpf", 0, "mode=0700"))
		return -errno;
	*root = BPFFS;
	return 0;
}

/* The directory of this network namespace's pins, made if @make. */
static int pin_dir(char *buf, size_t size, bool make)
{
	const char *root;
	struct stat ns;
	int ret;

	if (stat("/proc/self/ns/net", &ns))
		return -errno;
	ret = bpffs_root(&root, make);
	if (ret)
		return ret;
	snprintf(buf, size, "%s/" PIN_SUBDIR, root);
	if (make && mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	snprintf(buf, size, "%s/" PIN_SUBDIR "/net-%llu", root,
		 (unsigned long long)ns.st_ino);
	if (make && mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* "xdp-<ifindex>-<ifname>": the ifindex, and the name at attach time. */
static bool parse_pin(const char *name, uint32_t *ifindex, char *ifname)
{
	unsigned long idx;
	char *end;

	if (strncmp(name, "xdp-", 4))
		return false;
	errno = 0;
	idx = strtoul(name + 4, &end, 10);
	if (errno || end == name + 4 || *end != '-' || !idx || idx > UINT32_MAX ||
	    strlen(end + 1) >= IFNAMSIZ)
		return false;
	*ifindex = (uint32_t)idx;
	snprintf(ifname, IFNAMSIZ, "%s", end + 1);
	return true;
}

struct pin {
	uint32_t ifindex;
	char ifname[IFNAMSIZ];
	char path[PATH_MAX];
};

/*
 * Call @fn for each pin of this namespace, with its directory, name,
 * ifindex and device name, until @fn returns non-zero: that value, 0 at
 * the end or with no pins, or -errno.
 */
static int walk_pins(int (*fn)(const char *dir, const char *name,
			       uint32_t ifindex, const char *ifname, void *data),
		     void *data)
{
	char dir[PATH_MAX - NAME_MAX - 2], ifname[IFNAMSIZ];
	struct dirent *de;
	uint32_t ifindex;
	int ret;
	DIR *d;

	ret = pin_dir(dir, sizeof(dir), false);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	ret = 0;
	while (!ret && (de = readdir(d)))
		if (parse_pin(de->d_name, &ifindex, ifname))
			ret = fn(dir, de->d_name, ifindex, ifname, data);
	closedir(d);
	return ret;
}

static int match_pin(const char *dir, const char *name, uint32_t ifindex,
		     const char *ifname, void *data)
{
	struct pin *p = data;

	if (ifindex != p->ifindex)
		return 0;
	snprintf(p->ifname, sizeof(p->ifname), "%s", ifname);
	snprintf(p->path, sizeof(p->path), "%s/%s", dir, name);
	return 1;
}

/* The pin of @ifindex in this namespace into @p: 1 found, 0 none, -errno. */
static int find_pin(uint32_t ifindex, struct pin *p)
{
	p->ifindex = ifindex;
	return walk_pins(match_pin, p);
}

struct each_pin {
	void (*fn)(uint32_t ifindex, const char *ifname, void *data);
	void *data;
};

static int each_pin(const char *dir, const char *name, uint32_t ifindex,
		    const char *ifname, void *data)
{
	struct each_pin *e = data;

	(void)dir;
	(void)name;
	e->fn(ifindex, ifname, e->data);
	return 0;
}

int ft_xdp_each(void (*fn)(uint32_t ifindex, const char *ifname, void *data),
		void *data)
{
	struct each_pin e = { .fn = fn, .data = data };

	return walk_pins(each_pin, &e);
}

/*
 * The real device under VLAN device @dev, from /proc/net/vlan/config
 * ("vlan22 | 22 | trunk0"): 1 and its name in @real, or 0.
 */
static int vlan_real_dev(const char *dev, char *real)
{
	FILE *f = fopen("/proc/net/vlan/config", "re");
	char line[128], name[IFNAMSIZ], lower[IFNAMSIZ];
	int ret = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%15s | %*u | %15s", name, lower) != 2 ||
		    strcmp(name, dev))
			continue;
		snprintf(real, IFNAMSIZ, "%s", lower);
		ret = 1;
		break;
	}
	fclose(f);
	return ret;
}

int ft_xdp_tier(uint32_t ifindex, const char *ifname)
{
	char real[IFNAMSIZ];
	struct pin p;
	int ret;

	ret = find_pin(ifindex, &p);
	if (ret || !vlan_real_dev(ifname, real))
		return ret;
	ifindex = if_nametoindex(real);
	return ifindex ? find_pin(ifindex, &p) : 0;
}

/* @dev's ifindex, or FT_ERR said. */
static int dev_index(const char *dev, uint32_t *ifindex)
{
	int ret = ft_link_index(dev, ifindex);

	if (ret == -ENODEV) {
		ft_err("no such device: %s", dev);
		return FT_ERR;
	}
	if (ret) {
		ft_err("xdp: cannot look %s up: %s", dev, strerror(-ret));
		return FT_ERR;
	}
	return FT_OK;
}

static int pin_error(int err)
{
	if (err == -ENOENT)
		ft_err("xdp: no bpffs to pin the program in: ip netns exec gives each command a /sys of its own, and PID 1 has none at " BPFFS " (mount -t bpf bpf " BPFFS " there)");
	else if (err == -EACCES || err == -EPERM)
		ft_err("xdp: not permitted: the XDP tier's pins under " BPFFS " need root");
	else
		ft_err("xdp: cannot use the pins under " BPFFS ": %s",
		       strerror(-err));
	return FT_ERR;
}

#ifndef FTCTL_XDP

bool ft_xdp_built(void)
{
	return false;
}

void ft_xdp_verbose(bool on)
{
	(void)on;
}

static int not_built(void)
{
	ft_err("this ftctl was built without the XDP tier (its build host lacked clang, bpftool or libbpf's headers): rebuild it with them to use \"ftctl xdp\"");
	return FT_ERR;
}

int ft_xdp_on(struct ftctl *ft, const char *dev)
{
	(void)ft;
	(void)dev;
	return not_built();
}

#else /* FTCTL_XDP */

bool ft_xdp_built(void)
{
	return true;
}

static int quiet_print(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void ft_xdp_verbose(bool on)
{
	/* NULL: libbpf's default, everything but debug on stderr. */
	libbpf_set_print(on ? NULL : quiet_print);
}

/* Whether the running kernel is @maj.@min or later. */
static bool kernel_at_least(unsigned int maj, unsigned int min, char *rel,
			    size_t size)
{
	unsigned int a = 0, b = 0;
	struct utsname u;

	if (uname(&u))
		return true;
	snprintf(rel, size, "%s", u.release);
	if (sscanf(u.release, "%u.%u", &a, &b) != 2)
		return true;
	return a > maj || (a == maj && b >= min);
}

/*
 * Why the program's kfunc is missing, in the order an operator fixes it:
 * the kernel, the module, the module's BTF, the kfunc in it. FT_OK when
 * it is there.
 */
static int check_kfunc(void)
{
	struct btf *vmlinux, *mod;
	char rel[65] = "";
	int id;

	if (access("/sys/kernel/btf/vmlinux", F_OK)) {
		ft_err("xdp: the kernel has no BTF (/sys/kernel/btf/vmlinux is absent; CONFIG_DEBUG_INFO_BTF): the XDP tier needs it; the skb tier carries the traffic");
		return FT_ERR;
	}
	if (!kernel_at_least(5, 18, rel, sizeof(rel))) {
		ft_err("xdp: kernel too old: XDP programs can call a module's functions from Linux 5.18 on, this is %s; the skb tier carries the traffic",
		       rel);
		return FT_ERR;
	}
	if (access("/sys/module/" FASTTRACK_GENL_NAME, F_OK)) {
		ft_err("the fasttrack module is not loaded (try: modprobe fasttrack)");
		return FT_ERR;
	}
	if (access("/sys/kernel/btf/" FASTTRACK_GENL_NAME, F_OK)) {
		ft_err("xdp: the module was built without BTF: DKMS needs pahole, and the kernel's vmlinux or its image in /boot (see README.md); the skb tier carries the traffic");
		return FT_ERR;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		ft_err("xdp: cannot read the kernel's BTF: %s", strerror(errno));
		return FT_ERR;
	}
	mod = btf__load_module_btf(FASTTRACK_GENL_NAME, vmlinux);
	if (!mod) {
		ft_err("xdp: cannot read the fasttrack module's BTF: %s",
		       strerror(errno));
		btf__free(vmlinux);
		return FT_ERR;
	}
	id = btf__find_by_name_kind(mod, FASTTRACK_XDP_KFUNC, BTF_KIND_FUNC);
	btf__free(mod);
	btf__free(vmlinux);
	if (id < 0) {
		ft_err("xdp: the module was built without the XDP tier (its BTF has no " FASTTRACK_XDP_KFUNC "; install a fasttrack module of the same release as ftctl, built for a kernel with BTF); the skb tier carries the traffic");
		return FT_ERR;
	}
	return FT_OK;
}

/* The name of program @id, or "" (not root, or gone). */
static void prog_name(uint32_t id, char *name, size_t size)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd;

	name[0] = '\0';
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		snprintf(name, size, "%s", info.name);
	close(fd);
}

/* The device @link_fd is attached to; 0 when detached (the device went). */
static uint32_t link_ifindex(int link_fd)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(link_fd, &info, &len) ||
	    info.type != BPF_LINK_TYPE_XDP)
		return 0;
	return info.xdp.ifindex;
}

/*
 * Whether the pin @p still holds the program on its device: 1, or 0
 * after removing it (the device went, or something detached the link).
 */
static int pin_live(const struct pin *p)
{
	int fd = bpf_obj_get(p->path);
	uint32_t idx = 0;

	if (fd >= 0) {
		idx = link_ifindex(fd);
		close(fd);
	}
	if (idx == p->ifindex)
		return 1;
	unlink(p->path);
	return 0;
}

/* Any XDP program on @ifindex, whoever attached it: said, FT_ERR. */
static int check_foreign(const char *dev, uint32_t ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	char name[BPF_OBJ_NAME_LEN];
	const char *mode;
	uint32_t id;

	if (bpf_xdp_query((int)ifindex, 0, &q))
		return FT_OK;	/* the attach then says what is wrong */
	switch (q.attach_mode) {
	case XDP_ATTACHED_NONE:
		return FT_OK;
	case XDP_ATTACHED_DRV:
		mode = "native";
		id = q.drv_prog_id;
		break;
	case XDP_ATTACHED_SKB:
		mode = "generic";
		id = q.skb_prog_id;
		break;
	case XDP_ATTACHED_HW:
		mode = "offloaded";
		id = q.hw_prog_id;
		break;
	default:
		mode = "several modes";
		id = q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;
		break;
	}
	prog_name(id, name, sizeof(name));
	ft_err("xdp: %s already has an XDP program (id %" PRIu32 "%s%s, %s), which ftctl does not replace: detach it first (bpftool net show dev %s)",
	       dev, id, *name ? ", name " : "", name, mode, dev);
	return FT_ERR;
}

static int attach_error(const char *dev, int err)
{
	switch (err) {
	case EOPNOTSUPP:
		ft_err("xdp: %s has no native XDP (its driver does not run XDP programs); fasttrack does not use generic XDP, which runs where the skb tier already is: the skb tier carries its traffic",
		       dev);
		break;
	case EBUSY:
	case EEXIST:
		ft_err("xdp: %s already has an XDP program, which ftctl does not replace: detach it first (bpftool net show dev %s)",
		       dev, dev);
		break;
	case ERANGE:
		ft_err("xdp: %s's MTU is too large for XDP in its driver (lower it, or leave the device to the skb tier)",
		       dev);
		break;
	case EPERM:
		ft_err("xdp: not permitted: attaching an XDP program needs CAP_NET_ADMIN and CAP_BPF (or CAP_SYS_ADMIN)");
		break;
	default:
		ft_err("xdp: cannot attach the program to %s: %s (ftctl -v xdp on %s says more)",
		       dev, strerror(err), dev);
		break;
	}
	return FT_ERR;
}

/* The real device under a VLAN device: the program goes there. */
static int check_not_vlan(const char *dev)
{
	char real[IFNAMSIZ];

	if (!vlan_real_dev(dev, real))
		return FT_OK;
	ft_err("xdp: %s is a VLAN device: the XDP tier attaches to the real device and carries its VLANs' packets (ftctl xdp on %s)",
	       dev, real);
	return FT_ERR;
}

static int load_and_attach(const char *dev, uint32_t ifindex,
			   const char *path)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = XDP_FLAGS_DRV_MODE);
	struct fasttrack_xdp *skel;
	int err, fd, ret = FT_ERR;

	skel = fasttrack_xdp__open_and_load();
	if (!skel) {
		err = errno;
		ft_err("xdp: cannot load the XDP program: %s (ftctl -v xdp on %s shows libbpf's and the verifier's log)",
		       strerror(err), dev);
		return FT_ERR;
	}
	/* bpf_program__attach_xdp() would fall back to generic mode. */
	fd = bpf_link_create(bpf_program__fd(skel->progs.fasttrack_xdp),
			     (int)ifindex, BPF_XDP, &opts);
	if (fd < 0) {
		ret = attach_error(dev, -fd);
		goto out;
	}
	if (bpf_obj_pin(fd, path)) {
		err = errno;
		ft_err("xdp: cannot pin the link at %s: %s; the program is not attached",
		       path, strerror(err));
	} else {
		ret = FT_OK;
	}
	close(fd);	/* the pin holds it now, or nothing does */
out:
	fasttrack_xdp__destroy(skel);
	return ret;
}

int ft_xdp_on(struct ftctl *ft, const char *dev)
{
	char dir[PATH_MAX - NAME_MAX - 2], path[PATH_MAX];
	uint32_t ifindex;
	struct pin p;
	int ret;

	ret = dev_index(dev, &ifindex);
	if (ret)
		return ret;
	ret = check_not_vlan(dev);
	if (ret)
		return ret;
	ret = find_pin(ifindex, &p);
	if (ret < 0)
		return pin_error(ret);
	if (ret && pin_live(&p)) {
		if (!ft->batch)
			printf("xdp is already on for %s\n", dev);
		return FT_NOTHING;
	}
	ret = check_foreign(dev, ifindex);
	if (ret)
		return ret;
	ret = check_kfunc();
	if (ret)
		return ret;
	ret = pin_dir(dir, sizeof(dir), true);
	if (ret)
		return pin_error(ret);
	snprintf(path, sizeof(path), "%s/xdp-%" PRIu32 "-%s", dir, ifindex, dev);
	return load_and_attach(dev, ifindex, path);
}

#endif /* FTCTL_XDP */

/* Detach and unpin @p. FT_OK or FT_ERR (said). */
static int detach(const struct pin *p)
{
#ifdef FTCTL_XDP
	int fd = bpf_obj_get(p->path);

	/*
	 * Detached even if something else holds the link; one whose device
	 * went is detached already. Without libbpf, the pin is the link's
	 * last holder, and removing it detaches the program.
	 */
	if (fd >= 0) {
		if (link_ifindex(fd) && bpf_link_detach(fd)) {
			ft_err("xdp: cannot detach the program from %s: %s",
			       p->ifname, strerror(errno));
			close(fd);
			return FT_ERR;
		}
		close(fd);
	}
#endif
	if (unlink(p->path) && errno != ENOENT) {
		ft_err("xdp: cannot remove %s: %s", p->path, strerror(errno));
		return FT_ERR;
	}
	return FT_OK;
}

int ft_xdp_off(struct ftctl *ft, const char *dev)
{
	uint32_t ifindex;
	struct pin p;
	int ret;

	ret = dev_index(dev, &ifindex);
	if (ret)
		return ret;
	ret = find_pin(ifindex, &p);
	if (ret < 0)
		return pin_error(ret);
	if (!ret) {
		if (!ft->batch)
			printf("xdp is already off for %s\n", dev);
		return FT_NOTHING;
	}
	return detach(&p);
}

struct off_all {
	struct pin *pins;
	size_t n;
	bool nomem;
};

static void collect(uint32_t ifindex, const char *ifname, void *data)
{
	struct off_all *a = data;
	struct pin *p;

	p = realloc(a->pins, (a->n + 1) * sizeof(*p));
	if (!p) {
		a->nomem = true;
		return;
	}
	a->pins = p;
	p = &a->pins[a->n++];
	p->ifindex = ifindex;
	snprintf(p->ifname, sizeof(p->ifname), "%s", ifname);
}

/*
 * The pins of other namespaces whose device went (with its namespace):
 * the link is detached, but it still holds the program, and the program
 * the module. Their namespace cannot remove them any more; any can.
 */
static void sweep_gone(const char *ours)
{
#ifdef FTCTL_XDP
	char top[PATH_MAX / 2], dir[PATH_MAX - NAME_MAX - 2], path[PATH_MAX];
	char ifname[IFNAMSIZ];
	struct dirent *ns, *de;
	const char *root;
	uint32_t ifindex;
	DIR *t, *d;
	int fd;

	if (bpffs_root(&root, false))
		return;
	snprintf(top, sizeof(top), "%s/" PIN_SUBDIR, root);
	t = opendir(top);
	if (!t)
		return;
	while ((ns = readdir(t))) {
		if (strncmp(ns->d_name, "net-", 4))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", top, ns->d_name);
		if (!strcmp(dir, ours))
			continue;
		d = opendir(dir);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (!parse_pin(de->d_name, &ifindex, ifname))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			fd = bpf_obj_get(path);
			if (fd < 0)
				continue;
			if (!link_ifindex(fd) && !unlink(path))
				printf("xdp off %s (gone, with its network namespace)\n",
				       ifname);
			close(fd);
		}
		closedir(d);
		rmdir(dir);	/* if that emptied it */
	}
	closedir(t);
#else
	(void)ours;
#endif
}

int ft_xdp_off_all(struct ftctl *ft)
{
	char dir[PATH_MAX - NAME_MAX - 2], now[IFNAMSIZ];
	struct off_all a = { 0 };
	int ret = FT_OK, err;
	size_t i;

	(void)ft;
	err = ft_xdp_each(collect, &a);
	if (!err)
		err = pin_dir(dir, sizeof(dir), false);
	if (err && err != -ENOENT) {
		free(a.pins);
		return pin_error(err);
	}
	if (a.nomem) {
		free(a.pins);
		ft_err("out of memory");
		return FT_ERR;
	}
	for (i = 0; i < a.n; i++) {
		struct pin *p = &a.pins[i];

		snprintf(p->path, sizeof(p->path), "%s/xdp-%" PRIu32 "-%s",
			 dir, p->ifindex, p->ifname);
		if (detach(p)) {
			ret = FT_ERR;
			continue;
		}
		/* The device's name now; the pin's if it went. */
		printf("xdp off %s\n", if_indextoname(p->ifindex, now) ?
		       now : p->ifname);
	}
	free(a.pins);
	sweep_gone(err ? "" : dir);
	return ret;
}
