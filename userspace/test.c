// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl unit tests: the JSON writer, value parsing, and the netlink
 * transport against the kernel's own "nlctrl" family (always present), so
 * that dumps, acks and extack parsing run without the fasttrack module.
 *
 * Output is TAP; the exit code is 0 only if every test passed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/fasttrack.h>

#include "flow.h"
#include "json.h"
#include "nl.h"
#include "parse.h"
#include "rates.h"

static int tests, failed;

static void __attribute__((format(printf, 2, 3))) ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!cond)
		failed++;
	printf("%sok %d - ", cond ? "" : "not ", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Run @fn on a memory stream and compare what it wrote with @want. */
static void check_output(void (*fn)(FILE *f, const void *arg), const void *arg,
			 const char *want, const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	ok(!strcmp(buf, want), "%s", name);
	if (strcmp(buf, want))
		printf("# got:  [%s]\n# want: [%s]\n", buf, want);
	free(buf);
}

static void write_string(FILE *f, const void *arg)
{
	json_write_string(f, arg);
}

static void test_json_strings(void)
{
	static const struct {
		const char *in, *out, *name;
	} cases[] = {
		{ "vlan22", "\"vlan22\"", "plain" },
		{ "", "\"\"", "empty" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"", "quote and backslash" },
		{ "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"", "short escapes" },
		{ "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"", "control bytes" },
		{ "/", "\"/\"", "slash stays" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"", "UTF-8 2 bytes" },
		{ "\xe2\x82\xac", "\"\xe2\x82\xac\"", "UTF-8 3 bytes" },
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"", "UTF-8 4 bytes" },
		{ "a\xffz", "\"a\\ufffdz\"", "invalid byte" },
		{ "\xc3", "\"\\ufffd\"", "truncated sequence" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"", "overlong" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "surrogate" },
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
		  "above U+10FFFF" },
	};
	unsigned int i;

	for (i = 0; i < MNL_ARRAY_SIZE(cases); i++)
		check_output(write_string, cases[i].in, cases[i].out,
			     cases[i].name);
}

static void write_doc(FILE *f, const void *arg)
{
	struct json j;

	json_init(&j, f, *(const bool *)arg);
	json_arr_open(&j, NULL);
	json_obj_open(&j, NULL);
	json_str(&j, "ifname", "eth0");
	json_u64(&j, "ifindex", 5);
	json_obj_open(&j, "ipv4");
	json_bool(&j, "enabled", true);
	json_u64(&j, "bytes", 18446744073709551615ULL);
	json_obj_close(&j);
	json_obj_open(&j, "empty");
	json_obj_close(&j);
	json_strf(&j, "mark", "0x%x", 255);
	json_obj_close(&j);
	json_arr_close(&j);
	json_end(&j);
}

static void write_empty(FILE *f, const void *arg)
{
	struct json j;

	json_init(&j, f, *(const bool *)arg);
	json_arr_open(&j, NULL);
	json_arr_close(&j);
	json_end(&j);
}

static void test_json_docs(void)
{
	static const bool compact = false, pretty = true;

	check_output(write_doc, &compact,
		     "[{\"ifname\":\"eth0\",\"ifindex\":5,\"ipv4\":{\"enabled\":true,"
		     "\"bytes\":18446744073709551615},\"empty\":{},\"mark\":\"0xff\"}]\n",
		     "compact document");
	check_output(write_doc, &pretty,
		     "[\n"
		     "  {\n"
		     "    \"ifname\": \"eth0\",\n"
		     "    \"ifindex\": 5,\n"
		     "    \"ipv4\": {\n"
		     "      \"enabled\": true,\n"
		     "      \"bytes\": 18446744073709551615\n"
		     "    },\n"
		     "    \"empty\": {},\n"
		     "    \"mark\": \"0xff\"\n"
		     "  }\n"
		     "]\n",
		     "pretty document");
	check_output(write_empty, &compact, "[]\n", "empty array");
	check_output(write_empty, &pretty, "[]\n", "empty array, pretty");
}

static void test_parse(void)
{
	static const struct {
		const char *in;
		bool hex;
		int ret;
		uint32_t val;
	} u32s[] = {
		{ "0", false, 0, 0 },
		{ "65536", false, 0, 65536 },
		{ "007", false, 0, 7 },
		{ "4294967295", false, 0, 4294967295U },
		{ "4294967296", false, -ERANGE, 0 },
		{ "99999999999999999999999", false, -ERANGE, 0 },
		{ "", false, -EINVAL, 0 },
		{ "-1", false, -EINVAL, 0 },
		{ "+1", false, -EINVAL, 0 },
		{ " 1", false, -EINVAL, 0 },
		{ "1 ", false, -EINVAL, 0 },
		{ "12x", false, -EINVAL, 0 },
		{ "0x10", false, -EINVAL, 0 },
		{ "0x10", true, 0, 16 },
		{ "0XfF", true, 0, 255 },
		{ "0xffffffff", true, 0, 0xffffffff },
		{ "0x100000000", true, -ERANGE, 0 },
		{ "0x", true, -EINVAL, 0 },
		{ "0x0x5", true, -EINVAL, 0 },
		{ "0x-1", true, -EINVAL, 0 },
		{ "10", true, 0, 10 },
	};
	uint32_t val, mark, mask, flag;
	bool has_mask;
	unsigned int i;
	int ret;

	for (i = 0; i < MNL_ARRAY_SIZE(u32s); i++) {
		val = 0;
		ret = parse_u32(u32s[i].in, &val, u32s[i].hex);
		ok(ret == u32s[i].ret && (ret || val == u32s[i].val),
		   "parse_u32(\"%s\", %s) = %d, %u", u32s[i].in,
		   u32s[i].hex ? "hex" : "dec", ret, val);
	}

	ret = parse_mark("0x10", &mark, &mask, &has_mask);
	ok(!ret && mark == 0x10 && !has_mask, "mark without mask");
	ret = parse_mark("0x10/0xf0", &mark, &mask, &has_mask);
	ok(!ret && mark == 0x10 && mask == 0xf0 && has_mask, "mark/mask");
	ret = parse_mark("16/240", &mark, &mask, &has_mask);
	ok(!ret && mark == 16 && mask == 240 && has_mask, "decimal mark/mask");
	ok(parse_mark("1/", &mark, &mask, &has_mask) == -EINVAL, "empty mask");
	ok(parse_mark("/1", &mark, &mask, &has_mask) == -EINVAL, "empty mark");
	ok(parse_mark("1/2/3", &mark, &mask, &has_mask) == -EINVAL, "two slashes");

	ok(!parse_family("ipv4", &flag) && flag == 1, "family ipv4");
	ok(!parse_family("ipv6", &flag) && flag == 2, "family ipv6");
	ok(parse_family("ipv5", &flag) == -EINVAL, "family ipv5");
	ok(parse_family("IPV4", &flag) == -EINVAL, "family is case-sensitive");

	ok(check_ifname("lo") == 0, "ifname lo exists");
	ok(check_ifname("ftctl-nosuch0") == -ENODEV, "ifname missing");
	ok(check_ifname("") == -EINVAL, "ifname empty");
	ok(check_ifname("0123456789abcdef") == -EINVAL, "ifname 16 chars");
	ok(check_ifname("a/b") == -EINVAL, "ifname with slash");
	ok(check_ifname("a b") == -EINVAL, "ifname with space");
	ok(check_ifname("..") == -EINVAL, "ifname ..");
}

static void test_flow_format(void)
{
	static const struct {
		uint64_t ms;
		const char *want;
	} durations[] = {
		{ 0, "0.0s" }, { 99, "0.0s" }, { 500, "0.5s" }, { 12345, "12.3s" },
		{ 59999, "59.9s" }, { 60000, "1m00s" }, { 245000, "4m05s" },
		{ 3599999, "59m59s" }, { 3600000, "1h00m" }, { 7380000, "2h03m" },
		{ 86399999, "23h59m" }, { 86400000, "1d00h" },
		{ 18446744073709551615ULL, "213503982334d14h" },
	};
	struct ftctl ft = { .tty = false };
	struct ft_flow f = { 0 };
	char buf[32], *out = NULL;
	size_t len = 0;
	unsigned int i;
	FILE *mem;

	for (i = 0; i < MNL_ARRAY_SIZE(durations); i++)
		ok(!strcmp(ft_duration(durations[i].ms, buf, sizeof(buf)),
			   durations[i].want),
		   "duration %llu ms is %s (%s)",
		   (unsigned long long)durations[i].ms, durations[i].want, buf);

	ok(!strcmp(ft_flow_reason_name(FASTTRACK_REASON_TORN_DOWN, buf,
				       sizeof(buf)), "torn-down"), "reason torn-down");
	ok(!strcmp(ft_flow_reason_name(FASTTRACK_REASON_FLUSH, buf,
				       sizeof(buf)), "flush"), "reason flush");
	ok(!strcmp(ft_flow_reason_name(FASTTRACK_REASON_RULESET, buf,
				       sizeof(buf)), "ruleset"), "reason ruleset (%s)",
	   ft_flow_reason_name(FASTTRACK_REASON_RULESET, buf, sizeof(buf)));
	ok(!strcmp(ft_flow_reason_name(1234, buf, sizeof(buf)), "1234"),
	   "unknown reason is its number");

	/* A flow with nothing but an id: every other dump field is "-". */
	f.have = 1ULL << FASTTRACK_A_FLOW_ID;
	f.id = 42;
	mem = open_memstream(&out, &len);
	ft_flow_print_dump(mem, &f);
	fclose(mem);
	ok(!strcmp(out, "42\t0\t0\toriginal\t-\t-\t-\t-\t-\t-\t-\t-\tif0\t-\tif0\t-\t-\t-\t-\t-\n"),
	   "dump of an empty flow has 20 fields, \"-\" for the missing");
	free(out);

	/* IPv4 addresses are formatted without inet_ntop(). */
	f.have = ~0ULL;
	f.family = 2;	/* AF_INET */
	f.proto = 6;
	f.src_len = f.dst_len = f.nat_src_len = f.nat_dst_len = 4;
	memcpy(f.src, "\x00\x00\x00\x00", 4);
	memcpy(f.dst, "\xff\xff\xff\xff", 4);
	memcpy(f.nat_src, "\x0a\x00\x63\x01", 4);
	memcpy(f.nat_dst, "\xc6\x12\xde\x02", 4);
	f.sport = 65535;
	f.iif_vlan = 4094;
	f.packets = 18446744073709551615ULL;
	out = NULL;
	mem = open_memstream(&out, &len);
	ft_flow_print_dump(mem, &f);
	fclose(mem);
	ok(!strcmp(out, "42\tipv4\ttcp\toriginal\t0.0.0.0\t65535\t255.255.255.255\t0\t10.0.99.1\t0\t198.18.222.2\t0\tif0\t4094\tif0\t0\t18446744073709551615\t0\t0\t0\n"),
	   "dump of an IPv4 flow: [%.*s]", (int)strcspn(out, "\n"), out);
	free(out);
	memset(&f, 0, sizeof(f));
	f.id = 42;

	/* Text and dump agree on an IPv6 flow with NAT. */
	f.have = ~0ULL;
	f.family = 10;	/* AF_INET6 */
	f.proto = 17;
	f.dir = 1;
	f.src_len = f.dst_len = f.nat_src_len = f.nat_dst_len = 16;
	f.src[15] = 1;
	f.dst[15] = 2;
	f.nat_src[15] = 3;
	f.nat_dst[15] = 2;
	f.sport = 1;
	f.dport = 2;
	f.nat_sport = 3;
	f.nat_dport = 2;
	out = NULL;
	mem = open_memstream(&out, &len);
	ft_flow_print_text(&ft, mem, &f, FT_FLOW_LIST);
	fclose(mem);
	ok(!strcmp(out, "ipv6 udp [::1]:1 -> [::2]:2 nat [::3]:3 -> [::2]:2 in if0 vid 0 out if0 vid 0 dir reply packets 0 bytes 0 age 0.0s idle 0.0s id 42"),
	   "text of an IPv6 NAT flow: [%s]", out);
	free(out);
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(*(int *)data)++;
	return MNL_CB_OK;
}

static void reset_count(void *data)
{
	*(int *)data = 0;
}

static void test_nl(void)
{
	struct nlmsghdr *nlh;
	struct nl nl;
	int ret, n = 0;

	ret = nl_open(&nl, "ftctl-nosuch", 1);
	ok(ret == -ENOENT, "unknown family is -ENOENT (%d)", ret);

	ret = nl_open(&nl, "nlctrl", 2);
	ok(ret == 0 && nl.family == GENL_ID_CTRL, "resolve nlctrl (%d)", ret);
	if (ret)
		return;

	nlh = nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	ret = nl_dump(&nl, nlh, count_cb, reset_count, &n);
	ok(ret == 0 && n > 1, "dump all families: %d messages (%d)", n, ret);

	/* The socket is still in step after a dump. */
	n = 0;
	nlh = nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	ret = nl_request(&nl, nlh, count_cb, &n);
	ok(ret == 0 && n == 1, "doit after dump: %d message (%d)", n, ret);

	/* A request the policy rejects gets an error, with extack if any. */
	nlh = nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "much-too-long-for-genl");
	ret = nl_request(&nl, nlh, count_cb, &n);
	ok(ret == -EINVAL && nl.kernel_err,
	   "policy error %d, extack \"%s\", blamed attr %u",
	   ret, nl.ext_msg, nl_blamed_attr(&nl));
	if (nl.has_ext_offs)
		ok(nl_blamed_attr(&nl) == CTRL_ATTR_FAMILY_NAME,
		   "extack offset points at the bad attribute");

	/* And a plain error without extack, on the same socket. */
	nlh = nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 0xfff0);
	ret = nl_request(&nl, nlh, count_cb, &n);
	ok(ret == -ENOENT && nl.kernel_err && !nl.has_ext_offs,
	   "plain error %d", ret);

	nl_close(&nl);
}

static void test_rates(void)
{
	static const struct {
		const char *in;
		int ret;
		uint64_t ns;
	} intervals[] = {
		{ "1", 0, 1000000000ULL }, { "0.5", 0, 500000000ULL },
		{ "0.01", 0, 10000000ULL }, { "2.25", 0, 2250000000ULL },
		{ "86400", 0, 86400000000000ULL }, { "1.000000001", 0, 1000000001ULL },
		{ "0", -EINVAL, 0 }, { "0.009", -EINVAL, 0 }, { "86401", -EINVAL, 0 },
		{ "", -EINVAL, 0 }, { ".5", -EINVAL, 0 }, { "1s", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 }, { "1.0000000001", -EINVAL, 0 },
	};
	static const struct {
		double v;
		const char *unit, *out;
	} si[] = {
		{ 0, "pps", "0 pps" }, { 999, "pps", "999 pps" },
		{ 999.6, "pps", "1.00 kpps" }, { 12345, "pps", "12.3 kpps" },
		{ 150.2e6, "bit/s", "150 Mbit/s" }, { 9.4e9, "bit/s", "9.40 Gbit/s" },
	};
	char buf[32];
	unsigned int i;

	for (i = 0; i < MNL_ARRAY_SIZE(intervals); i++) {
		uint64_t ns = 0;
		int ret = ft_parse_interval(intervals[i].in, &ns);

		ok(ret == intervals[i].ret && (ret || ns == intervals[i].ns),
		   "interval '%s'", intervals[i].in);
	}
	for (i = 0; i < MNL_ARRAY_SIZE(si); i++) {
		ft_si(si[i].v, si[i].unit, buf, sizeof(buf));
		ok(!strcmp(buf, si[i].out), "si %g %s: '%s'", si[i].v, si[i].unit, buf);
	}
	ok(ft_rate(1000, 500000000ULL) == 2000, "rate: 1000 in 0.5 s is 2000/s");
	ok(ft_rate(UINT64_MAX, 1000000000ULL) == (double)UINT64_MAX,
	   "rate: a whole u64 in 1 s");
	ok(ft_rate(5, 0) == 0, "rate: no time, no rate");
}

int main(void)
{
	test_json_strings();
	test_rates();
	test_json_docs();
	test_parse();
	test_flow_format();
	test_nl();
	printf("1..%d\n", tests);
	if (failed)
		printf("# %d of %d failed\n", failed, tests);
	return failed ? 1 : 0;
}
