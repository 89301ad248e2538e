// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * escape-put MODE ARG...: each ARG through one of libftkit's writers of
 * foreign strings, for t0003-escape.sh to check against references:
 *   json   ftk_json_str(), one per line (python3's json.loads reads them)
 *   xml    ftk_xml_put() as attribute and text of an SVG (xmllint reads it)
 *   text   ftk_text_str(), one per line (strace's escapes of the same bytes)
 *   buf N  ftk_text_escape() into an N-byte buffer: the text, and the length it returned
 *   raw    write(2) of each ARG to /dev/null (strace shows the bytes its way)
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ftkit/text.h>

#include "internal.h"

int main(int argc, char **argv)
{
	int i, fd;

	if (argc < 2)
		return 1;
	if (!strcmp(argv[1], "json")) {
		for (i = 2; i < argc; i++) {
			ftk_json_str(stdout, argv[i], SIZE_MAX);
			putchar('\n');
		}
	} else if (!strcmp(argv[1], "xml")) {
		puts("<svg xmlns=\"http://www.w3.org/2000/svg\">");
		for (i = 2; i < argc; i++) {
			fputs("<text title=\"", stdout);
			ftk_xml_put(stdout, argv[i], strlen(argv[i]));
			fputs("\">", stdout);
			ftk_xml_put(stdout, argv[i], strlen(argv[i]));
			puts("</text>");
		}
		puts("</svg>");
	} else if (!strcmp(argv[1], "text")) {
		for (i = 2; i < argc; i++) {
			ftk_text_str(stdout, argv[i], SIZE_MAX);
			putchar('\n');
		}
	} else if (!strcmp(argv[1], "buf") && argc > 2) {
		size_t size = strtoul(argv[2], NULL, 0), n;
		char *buf = malloc(size + 1);

		for (i = 3; buf && i < argc; i++) {
			memset(buf, 'X', size + 1);
			n = ftk_text_escape(buf, size, argv[i], SIZE_MAX);
			/* the byte past @size must be untouched */
			printf("%s %zu %c\n", size ? buf : "", n, buf[size]);
		}
		free(buf);
	} else if (!strcmp(argv[1], "raw")) {
		fd = open("/dev/null", O_WRONLY);
		for (i = 2; i < argc; i++)
			if (write(fd, argv[i], strlen(argv[i])) < 0)
				return 2;
	} else {
		return 1;
	}
	return ferror(stdout) ? 2 : 0;
}
