// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strings from the traced system as output: the one JSON string writer,
 * the one XML text writer (the SVG pictures) and the one terminal text
 * escaper of libftkit.
 *
 * Process names, paths and argv are bytes chosen by whoever runs the
 * traced program: any byte but NUL, valid UTF-8 or not. JSON and XML
 * must be UTF-8 and XML forbids control characters and U+FFFE/U+FFFF, so
 * a name that breaks either would make a whole report unreadable
 * (json.loads and xmllint reject the file). Text output must not carry a
 * newline (a forged output line) or a terminal escape. libc has no
 * UTF-8 decoder that ignores the locale (mbrtowc follows LC_CTYPE and
 * accepts what the locale accepts), hence the small decoder here.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <ftkit/text.h>

#include "internal.h"

#define REPLACEMENT	0xfffd

/*
 * utf8_next() - decode one character of @s (@n > 0 bytes)
 *
 * Stores the code point in *@cp and returns the bytes it took. What is
 * not well-formed UTF-8 (RFC 3629: a stray continuation byte, a cut or
 * overlong sequence, a surrogate, past U+10FFFF) is decoded as U+FFFD,
 * one for each maximal subpart (Unicode's "best practice", which
 * Python's and the WHATWG decoders follow): the bytes that could start a
 * valid sequence, or else one byte.
 */
static size_t utf8_next(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	uint32_t c = u[0];
	size_t k, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		k = 2;
		c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		k = 3;
		c &= 0x0f;
		if (c == 0x0)
			lo = 0xa0;	/* no overlong form */
		else if (c == 0xd)
			hi = 0x9f;	/* no surrogate */
	} else if (c >= 0xf0 && c <= 0xf4) {
		k = 4;
		c &= 0x07;
		if (c == 0x0)
			lo = 0x90;	/* no overlong form */
		else if (c == 0x4)
			hi = 0x8f;	/* nothing past U+10FFFF */
	} else {
		*cp = REPLACEMENT;
		return 1;
	}
	for (i = 1; i < k; i++, lo = 0x80, hi = 0xbf) {
		if (i >= n || u[i] < lo || u[i] > hi) {
			*cp = REPLACEMENT;
			return i;
		}
		c = c << 6 | (u[i] & 0x3f);
	}
	*cp = c;
	return k;
}

/* A noncharacter that XML forbids and no name should carry: U+FFFE, U+FFFF. */
static int nonchar(uint32_t c)
{
	return c == 0xfffe || c == 0xffff;
}

static void put_utf8(FILE *f, uint32_t c)
{
	if (c < 0x80) {
		fputc((int)c, f);
	} else if (c < 0x800) {
		fputc((int)(0xc0 | c >> 6), f);
		fputc((int)(0x80 | (c & 0x3f)), f);
	} else if (c < 0x10000) {
		fputc((int)(0xe0 | c >> 12), f);
		fputc((int)(0x80 | (c >> 6 & 0x3f)), f);
		fputc((int)(0x80 | (c & 0x3f)), f);
	} else {
		fputc((int)(0xf0 | c >> 18), f);
		fputc((int)(0x80 | (c >> 12 & 0x3f)), f);
		fputc((int)(0x80 | (c >> 6 & 0x3f)), f);
		fputc((int)(0x80 | (c & 0x3f)), f);
	}
}

static size_t bounded_len(const char *s, size_t len)
{
	return s ? strnlen(s, len) : 0;
}

/**
 * ftk_json_str() - a string as JSON
 * @f: where to
 * @s: the string (NULL is written as "")
 * @len: at most this many bytes of it (it may end sooner with a NUL)
 *
 * Quotes, backslashes and control characters (below U+0020, and DEL) are
 * escaped; valid UTF-8 is written as it is; every byte that is not part
 * of valid UTF-8, and U+FFFE and U+FFFF, become U+FFFD, so that any
 * string of bytes makes valid JSON (RFC 8259) that strict parsers take.
 */
FTK_API void ftk_json_str(FILE *f, const char *s, size_t len)
{
	size_t i, n = bounded_len(s, len), k;
	uint32_t c;

	fputc('"', f);
	for (i = 0; i < n; i += k) {
		k = utf8_next(s + i, n - i, &c);
		if (nonchar(c))
			c = REPLACEMENT;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", (int)c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", (unsigned int)c);
		else
			put_utf8(f, c);
	}
	fputc('"', f);
}

/*
 * ftk_xml_put() - @n bytes of @s as XML character data or attribute value
 *
 * &<>"' escaped; tab, newline and carriage return as character
 * references (an attribute keeps them); other control characters, bytes
 * that are not valid UTF-8, U+FFFE and U+FFFF (none of which XML 1.0
 * allows, even as a reference) become U+FFFD.
 */
void ftk_xml_put(FILE *f, const char *s, size_t n)
{
	size_t i, k;
	uint32_t c;

	for (i = 0; i < n; i += k) {
		k = utf8_next(s + i, n - i, &c);
		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\t': case '\n': case '\r': fprintf(f, "&#%u;", (unsigned int)c); break;
		default:
			if (c < 0x20 || c == 0x7f || nonchar(c))
				c = REPLACEMENT;
			put_utf8(f, c);
		}
	}
}

/* One byte as strace escapes it, in @esc; returns its length (1 to 4). */
static size_t text_byte(unsigned char c, unsigned char next, char *esc)
{
	int octal_next = next >= '0' && next <= '7';
	size_t k = 0;

	if (c >= 0x20 && c < 0x7f && c != '\\') {
		esc[k++] = (char)c;
		return k;
	}
	esc[k++] = '\\';
	switch (c) {
	case '\\': esc[k++] = '\\'; break;
	case '\t': esc[k++] = 't'; break;
	case '\n': esc[k++] = 'n'; break;
	case '\r': esc[k++] = 'r'; break;
	case '\v': esc[k++] = 'v'; break;
	case '\f': esc[k++] = 'f'; break;
	default:
		if (c >= 0100 || octal_next)
			esc[k++] = (char)('0' + (c >> 6));
		if (c >= 010 || octal_next)
			esc[k++] = (char)('0' + (c >> 3 & 7));
		esc[k++] = (char)('0' + (c & 7));
	}
	return k;
}

/**
 * ftk_text_escape() - a string as one item of terminal text, as strace shows it
 * @buf: where to (always NUL-terminated when @size > 0)
 * @size: its size
 * @s: the string (NULL is taken as "")
 * @len: at most this many bytes of it (it may end sooner with a NUL)
 *
 * strace's escapes (its string_quote(), without the quotes): a backslash
 * is "\\"; tab, newline, carriage return, vertical tab and form feed are
 * "\t", "\n", "\r", "\v" and "\f"; every other byte outside printable
 * ASCII (0x20-0x7e) is an octal escape, of three digits when an octal
 * digit follows, else of as few as it needs ("\33[2J", "\0012",
 * "\303\251"). So no byte of a traced name ends an output line or
 * reaches the terminal as a control sequence, and the text reads back
 * unambiguously. When @buf is too small the text is cut between escapes,
 * never inside one.
 *
 * Return: the length of the whole escaped text (as snprintf(3): @size or
 * more means @buf holds a prefix of it).
 */
FTK_API size_t ftk_text_escape(char *buf, size_t size, const char *s, size_t len)
{
	size_t i, n = bounded_len(s, len), out = 0, k, end = 0;
	int cut = 0;
	char esc[4];

	for (i = 0; i < n; i++) {
		k = text_byte((unsigned char)s[i], i + 1 < n ? (unsigned char)s[i + 1] : 0, esc);
		if (!cut && out + k < size) {
			memcpy(buf + out, esc, k);
			end = out + k;
		} else {
			cut = 1;
		}
		out += k;
	}
	if (size)
		buf[end] = '\0';
	return out;
}

/**
 * ftk_text_str() - a string as terminal text, escaped as ftk_text_escape() does
 * @f: where to
 * @s: the string (NULL is taken as "")
 * @len: at most this many bytes of it (it may end sooner with a NUL)
 */
FTK_API void ftk_text_str(FILE *f, const char *s, size_t len)
{
	size_t i, n = bounded_len(s, len), k;
	char esc[4];

	for (i = 0; i < n; i++) {
		k = text_byte((unsigned char)s[i], i + 1 < n ? (unsigned char)s[i + 1] : 0, esc);
		fwrite(esc, 1, k, f);
	}
}
