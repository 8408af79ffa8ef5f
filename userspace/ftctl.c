// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: control fasttrack, the software flow offload for Linux routers.
 *
 * main() parses the global options and runs one command from the table
 * below (dispatch.c), or a batch of them (batch.c). Commands check their
 * arguments before they open the netlink socket, and print human output
 * (aligned and coloured only on a terminal) or, with -j, JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fasttrack.h>

#include "batch.h"
#include "commands.h"
#include "dispatch.h"
#include "json.h"
#include "print.h"
#include "session.h"
#include "state.h"

#ifndef FTCTL_VERSION
#define FTCTL_VERSION "unknown"
#endif

static int cmd_help(struct ftctl *ft, int argc, char **argv);

/*
 * What a refused command needs (see the uapi header): state changes need
 * CAP_NET_ADMIN in the user namespace that owns the network namespace, as
 * nftables does; the flows and their events reveal connections and need
 * it too, as conntrack's do. Device, statistics and settings reads are
 * open to any user.
 */
#define NEEDS_ADMIN	"changing fasttrack state needs CAP_NET_ADMIN in the user namespace that owns this network namespace"
#define NEEDS_FLOWS	"listing flows needs CAP_NET_ADMIN, as conntrack -L does"
#define NEEDS_XDP	"attaching XDP programs needs CAP_NET_ADMIN and CAP_BPF (or CAP_SYS_ADMIN)"
#define NEEDS_EVENTS	"watching flow events needs CAP_NET_ADMIN, as conntrack -E does"

static const struct ft_cmd commands[] = {
	{ "enable", cmd_enable, "DEV|PATTERN [ipv4|ipv6]",
	  "turn the fast path on for a device, or devices by name",
	  "Without a family, both ipv4 and ipv6 are enabled. Enabling is\n"
	  "additive: families already enabled stay enabled, and enabling what\n"
	  "is enabled succeeds. The module keeps the name: a device created,\n"
	  "re-created, renamed or moved in later with that name is enabled\n"
	  "too. A PATTERN is a shell glob ('vlan*', 'eth0.?', quoted), which\n"
	  "skips devices that cannot be offloaded. At most 256 per netns.\n",
	  NEEDS_ADMIN, false },
	{ "disable", cmd_disable, "[-f] DEV|PATTERN|all [ipv4|ipv6]",
	  "turn the fast path off for a device, or devices by name",
	  "Removes the family (or every family) from the name or pattern and\n"
	  "from the devices it matches, unless another one gives it too. A\n"
	  "device with no family left is released; cached flows that entered\n"
	  "through it are dropped.\n"
	  "-f, --force: a device that is not enabled (or does not exist) is\n"
	  "not an error. \"all\" disables everything; in a batch\n"
	  "(-b), it disables at the end of the batch what the lines after it\n"
	  "did not enable, so that reloading a file changes only what changed.\n",
	  NEEDS_ADMIN, false },
	{ "show", cmd_show, "[dump] [[dev] DEV] | rules",
	  "show devices and their per-family counters",
	  "Without DEV, every device that has fasttrack enabled is listed,\n"
	  "then the names and patterns it was enabled by and the devices\n"
	  "each matches (\"show rules\": those alone).\n"
	  "\"dump\" prints one tab-separated line per device, for scripts:\n"
	  "  ifname ifindex ipv4_enabled ipv4_packets ipv4_bytes\n"
	  "  ipv6_enabled ipv6_packets ipv6_bytes\n"
	  "A device named \"dump\" is shown with \"show dev dump\".\n"
	  "\n"
	  "show -r [SECONDS] [-c COUNT] [DEV...]: live rates, see \"ftctl top\".\n",
	  NULL, false },
	{ "top", cmd_rates, "[SECONDS] [-c COUNT] [DEV...]",
	  "live rates per device and family (show -r)",
	  "Every SECONDS (default 1, fractions allowed): per enabled device\n"
	  "(or each DEV) and family, the packets and bits per second the fast\n"
	  "path forwarded, next to what the device received in all (its netdev\n"
	  "rx counters, which are not per family), the fast path's share of\n"
	  "those packets, and the punts per second by reason (namespace-wide:\n"
	  "the module counts punts per namespace). On a terminal the screen is\n"
	  "redrawn in place; with -j, one JSON object per interval and line.\n"
	  "The rates are exact deltas of the kernel's 64-bit counters over the\n"
	  "interval measured with CLOCK_MONOTONIC. -c COUNT stops after COUNT\n"
	  "intervals.\n", NULL, false },
	{ "flows", cmd_flows, "[dump] [dev DEV] [ipv4|ipv6] [FILTER...]",
	  "list the cached flow directions",
	  "One line per cached flow direction: addresses and ports as received\n"
	  "and, after \"nat\", as sent; ingress and egress device (with the\n"
	  "VLAN id of a VLAN device), packets and bytes the fast path forwarded,\n"
	  "age and idle time. \"dev DEV\" keeps the flows that enter through\n"
	  "DEV; a family keeps that family. Filters, on the addresses and ports\n"
	  "as received:\n"
	  "  src ADDR, dst ADDR, addr ADDR (either), sport PORT, dport PORT,\n"
	  "  port PORT (either), proto tcp|udp\n"
	  "\"dump\" prints tab-separated fields for scripts:\n"
	  "  id family proto dir src sport dst dport nat_src nat_sport\n"
	  "  nat_dst nat_dport iif iif_vlan oif oif_vlan packets bytes\n"
	  "  age_ms idle_ms\n", NEEDS_FLOWS, false },
	{ "flush", cmd_flush, "[dev DEV] [ipv4|ipv6]",
	  "drop cached flows",
	  "Drop every cached flow, or those entering through DEV, or those of\n"
	  "a family. Their connections go on through the full stack and are\n"
	  "learned again. The filters of \"flows\" (src, dst, addr, sport,\n"
	  "dport, port, proto) flush the connections that have a direction\n"
	  "matching them, as conntrack -D does: one connection, given its\n"
	  "tuple.\n", NEEDS_ADMIN, false },
	{ "monitor", cmd_monitor, "",
	  "print flow events as they happen",
	  "One line per flow direction learned (\"new\") or removed (\"del\",\n"
	  "with the reason: expired, torn-down, ct-gone, device, route, neigh,\n"
	  "flush or ruleset), until interrupted. With -j, one JSON object per\n"
	  "line.\n", NEEDS_EVENTS, true },
	{ "stats", cmd_stats, "[-s|--per-cpu]",
	  "show the global statistics",
	  "Counters of the current network namespace: cached flows and why\n"
	  "they went away, packets forwarded, packets punted to the full\n"
	  "stack by reason, and packets of connections that were not learned,\n"
	  "by reason. -s adds a table with one row per CPU.\n", NULL, false },
	{ "get", cmd_get, "",
	  "show the settings",
	  "Settings of the current network namespace, one \"KEY VALUE\" line\n"
	  "each, in the form \"ftctl set\" takes.\n", NULL, false },
	{ "set", cmd_set, "KEY VALUE [KEY VALUE...]",
	  "change settings",
	  "Settings are per network namespace. Keys:\n"
	  "  max-flows N            maximum cached flow directions\n"
	  "  tcp-timeout SECONDS    idle time before a TCP flow expires\n"
	  "  udp-timeout SECONDS    idle time before a UDP flow expires\n"
	  "  skip-mark MARK[/MASK]  connections whose packet or ct mark,\n"
	  "                         masked, equals MARK stay on the slow path;\n"
	  "                         without /MASK the mask is 0xffffffff\n"
	  "  skip-mask MASK         the mask alone; 0 turns the check off\n"
	  "Marks and masks are hex (0x...) or decimal.\n", NEEDS_ADMIN, false },
	{ "save", cmd_save, "",
	  "print the running state as commands for -b",
	  "The settings (\"set\" lines) and the enabled names, patterns and\n"
	  "devices (\"enable\" lines) after a \"disable all\", so that \"ftctl save > FILE\" and\n"
	  "\"ftctl -b FILE\" restore exactly this state, and applying it twice\n"
	  "changes nothing the second time.\n", NULL, false },
	{ "xdp", cmd_xdp, "on|off DEV | off all | show",
	  "attach the XDP tier to a device, or detach it",
	  "The XDP tier forwards cached flows in the device's driver, before\n"
	  "an skb is built; what it cannot forward goes up to the skb tier as\n"
	  "before. \"on\" attaches fasttrack's XDP program to DEV, a physical or\n"
	  "trunk device (it carries the packets of the VLAN devices on it too),\n"
	  "in native (driver) mode only, and pins it under /sys/fs/bpf/fasttrack\n"
	  "so that it stays after ftctl exits. Another XDP program on DEV is\n"
	  "never replaced. \"off\" detaches it; \"off all\" detaches it from\n"
	  "every device of this network namespace, and what namespaces\n"
	  "deleted with it attached left (needed before rmmod fasttrack: the\n"
	  "program holds the module). \"show\" lists where it\n"
	  "is on. It needs a kernel and a fasttrack module with BTF (Linux\n"
	  "5.18 or later); \"on\" says what is missing. -v shows libbpf's log.\n",
	  NEEDS_XDP, false },
	{ "help", cmd_help, "[COMMAND]",
	  "show this help, or the help of one command",
	  NULL, NULL, true },
};

#define NCOMMANDS MNL_ARRAY_SIZE(commands)

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
		"Usage: ftctl [OPTIONS] COMMAND [ARGS...]\n"
		"\n"
		"Control fasttrack, the software flow offload for Linux routers.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < NCOMMANDS; i++) {
		char synopsis[80];

		snprintf(synopsis, sizeof(synopsis), "%s %s",
			 commands[i].name, commands[i].args);
		/* A long synopsis gets a line of its own. */
		if (strlen(synopsis) > 40)
			fprintf(f, "  %s\n%43s", synopsis, "");
		else
			fprintf(f, "  %-40s ", synopsis);
		fprintf(f, "%s\n", commands[i].help);
	}
	fprintf(f,
		"\n"
		"Options:\n"
		"  -j, --json        JSON output (show, top, flows, stats, get, monitor, xdp)\n"
		"  -b, --batch FILE  run the commands of FILE, one a line (\"-\": stdin)\n"
		"  -h, --help        this help; \"ftctl COMMAND --help\" for one command\n"
		"  -v, --verbose     libbpf's messages (xdp)\n"
		"  -V, --version     print the versions of ftctl and the loaded module\n"
		"\n"
		"See ftctl(8).\n");
}

static int cmd_help(struct ftctl *ft, int argc, char **argv)
{
	const struct ft_cmd *cmd;

	if (argc > 2)
		return ft_usage(ft, "unexpected argument '%s'", argv[2]);
	if (argc < 2) {
		usage(stdout);
		return FT_OK;
	}
	cmd = ft_find_command(ft, argv[1]);
	if (!cmd) {
		ft_err("unknown command '%s'", argv[1]);
		fprintf(stderr, "Try 'ftctl --help'.\n");
		return FT_USAGE;
	}
	ft_command_usage(cmd);
	return FT_OK;
}

/* The loaded module's version, from sysfs; "" when it is not loaded. */
static void module_version(char *buf, size_t size)
{
	FILE *f = fopen("/sys/module/" FASTTRACK_GENL_NAME "/version", "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * -V: both versions. They should be the same release: a module and an
 * ftctl of different releases may lack each other's commands, counters
 * or attributes (both ignore what they do not know, but a feature only
 * works when both have it).
 */
static int print_version(const struct ftctl *ft)
{
	char mod[64];

	module_version(mod, sizeof(mod));
	if (ft->json) {
		struct json j;

		json_init(&j, stdout, ft->tty);
		json_obj_open(&j, NULL);
		json_u64(&j, "json_schema_version", FT_JSON_SCHEMA_VERSION);
		json_str(&j, "ftctl", FTCTL_VERSION);
		if (*mod)
			json_str(&j, "module", mod);
		json_obj_close(&j);
		json_end(&j);
	} else {
		printf("ftctl %s\n", FTCTL_VERSION);
		printf("fasttrack module %s\n", *mod ? mod : "not loaded");
	}
	if (*mod && strcmp(mod, FTCTL_VERSION))
		ft_warn("ftctl %s and the loaded fasttrack module %s are different releases: a feature works only when both have it; install the same version of both",
			FTCTL_VERSION, mod);
	return FT_OK;
}

static bool want_color(void)
{
	const char *term = getenv("TERM");
	const char *no_color = getenv("NO_COLOR");

	/* https://no-color.org: any non-empty NO_COLOR turns colour off. */
	if (no_color && *no_color)
		return false;
	return term && *term && strcmp(term, "dumb") != 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json",	no_argument,	NULL, 'j' },
		{ "help",	no_argument,	NULL, 'h' },
		{ "version",	no_argument,	NULL, 'V' },
		{ "verbose",	no_argument,	NULL, 'v' },
		{ "batch",	required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	struct ftctl ft = { .cmds = commands, .ncmds = NCOMMANDS };
	const char *batch = NULL;
	bool version = false;
	int opt, ret;

	/* One thread: stdio need not lock for each character of a dump. */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	ft.tty = isatty(STDOUT_FILENO);
	ft.color = ft.tty && want_color();

	opterr = 0;
	/* '+': options end at the command, as in "ftctl -j show". */
	while ((opt = getopt_long(argc, argv, "+jhVvb:", options, NULL)) != -1) {
		switch (opt) {
		case 'j':
			ft.json = true;
			break;
		case 'h':
			usage(stdout);
			return FT_OK;
		case 'V':
			version = true;
			break;
		case 'v':
			ft.verbose = true;
			break;
		case 'b':
			batch = optarg;
			break;
		default:
			if (optopt == 'b')
				ft_err("option '-b' needs a file (\"-\" for stdin)");
			else if (optopt)
				ft_err("unknown option '-%c'", optopt);
			else
				ft_err("unknown option '%s'", argv[optind - 1]);
			fprintf(stderr, "Try 'ftctl --help'.\n");
			return FT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;

	if (version)
		return print_version(&ft);
	if (batch && argc) {
		ft_err("-b runs the commands of a file; unexpected '%s' after it",
		       argv[0]);
		fprintf(stderr, "Try 'ftctl --help'.\n");
		return FT_USAGE;
	}
	if (batch) {
		ret = ft_batch_run(&ft, batch);
	} else if (argc < 1) {
		usage(stderr);
		return FT_USAGE;
	} else {
		ret = ft_run(&ft, argc, argv);
	}

	if (ft.connected)
		nl_close(&ft.nl);
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			ft_err("write error: %s", strerror(errno));
		ret = ret ? ret : FT_ERR;
	}
	return ret;
}
