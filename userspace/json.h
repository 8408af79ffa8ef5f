/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: a small streaming JSON writer.
 *
 * Values are written as they come; the writer only tracks commas and
 * indentation. @key is the member name inside an object and NULL inside an
 * array or at the top level. Strings are escaped per RFC 8259; bytes that
 * are not valid UTF-8 become U+FFFD, so the output is always valid JSON.
 */
#ifndef FTCTL_JSON_H
#define FTCTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json {
	FILE *f;
	bool pretty;
	int depth;
	bool has_items[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t val);
/* A number with @decimals digits after the point; finite, not negative. */
void json_f64(struct json *j, const char *key, double val, int decimals);
void json_bool(struct json *j, const char *key, bool val);
void json_str(struct json *j, const char *key, const char *val);
/* A string from a printf format, e.g. json_strf(j, "mark", "0x%x", m). */
void json_strf(struct json *j, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* End the document: a final newline. */
void json_end(struct json *j);

/* Write @s as a quoted, escaped JSON string. */
void json_write_string(FILE *f, const char *s);

#endif /* FTCTL_JSON_H */
