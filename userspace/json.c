// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: a small streaming JSON writer. See json.h.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "json.h"

/*
 * Length of the valid UTF-8 sequence at @s, or 0 if it is not one
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
 */
static int utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;

	/* Bounds of the second byte that rule out the bad forms. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;

	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

void json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		const unsigned char *run = s;
		int len;

		/* Printable ASCII that needs no escape goes out in one piece. */
		while (*s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\')
			s++;
		if (s != run) {
			fwrite(run, 1, (size_t)(s - run), f);
			continue;
		}

		switch (*s) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*s < 0x20 || *s == 0x7f) {
				fprintf(f, "\\u%04x", *s);
				break;
			}
			len = utf8_len(s);
			if (!len) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(s, 1, len, f);
			s += len;
			continue;
		}
		s++;
	}
	fputc('"', f);
}

void json_init(struct json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->pretty = pretty;
	j->depth = 0;
	j->has_items[0] = false;
}

static void indent(struct json *j)
{
	int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator, indentation and member name before a value. */
static void member(struct json *j, const char *key)
{
	if (j->has_items[j->depth])
		fputc(',', j->f);
	j->has_items[j->depth] = true;
	if (j->pretty && j->depth > 0)
		indent(j);
	if (key) {
		json_write_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void nest_open(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void nest_close(struct json *j, char c)
{
	bool had_items = j->has_items[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (j->pretty && had_items)
		indent(j);
	fputc(c, j->f);
}

void json_obj_open(struct json *j, const char *key)
{
	nest_open(j, key, '{');
}

void json_obj_close(struct json *j)
{
	nest_close(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	nest_open(j, key, '[');
}

void json_arr_close(struct json *j)
{
	nest_close(j, ']');
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	char buf[20], *p = buf + sizeof(buf);

	member(j, key);
	/* Not fprintf(): a 100 000-flow dump writes two million numbers. */
	do {
		*--p = (char)('0' + val % 10);
		val /= 10;
	} while (val);
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), j->f);
}

void json_f64(struct json *j, const char *key, double val, int decimals)
{
	member(j, key);
	fprintf(j->f, "%.*f", decimals, val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_str(struct json *j, const char *key, const char *val)
{
	member(j, key);
	json_write_string(j->f, val);
}

void json_strf(struct json *j, const char *key, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_str(j, key, buf);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
