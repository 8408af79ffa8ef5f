// SPDX-License-Identifier: GPL-2.0
/*
 * Run the fuzz target over files or directories of inputs, without
 * libFuzzer: for compilers that lack it, and to replay a crash.
 *   replay FILE|DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int one(const char *path)
{
	static uint8_t buf[1 << 16];
	FILE *fp = fopen(path, "rb");
	size_t n;

	if (!fp) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	int i, runs = 0, err = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *de;
		char path[4096];
		DIR *d;

		if (stat(argv[i], &st) || !S_ISDIR(st.st_mode)) {
			err |= one(argv[i]);
			runs++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			err |= one(path);
			runs++;
		}
		if (d)
			closedir(d);
	}
	printf("replay: %d inputs, no invariant broken\n", runs);
	return err;
}
