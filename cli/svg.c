// SPDX-License-Identifier: MIT
/* The SVG writer; see svg.h. */
#include <string.h>

#include "../common/escape.h"
#include "svg.h"

/* One character of @s (1 to 4 bytes, or 1 for a byte that is not one). */
static int put_char(FILE *f, const unsigned char *s)
{
	unsigned cp;
	int n = mdb_utf8_len(s, &cp);

	if (n == 0 || (cp < 0x20 && cp != '\t' && cp != '\n') ||
	    cp == 0xfffe || cp == 0xffff) {
		fputc('?', f);
		return 1;
	}
	switch (cp) {
	case '&': fputs("&amp;", f); break;
	case '<': fputs("&lt;", f); break;
	case '>': fputs("&gt;", f); break;
	case '"': fputs("&quot;", f); break;
	case '\'': fputs("&#39;", f); break;
	default: fwrite(s, 1, (size_t)n, f);
	}
	return n;
}

void svg_escape(FILE *f, const char *s, long max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	long len = (long)strlen((const char *)p), at = 0;

	if (max >= 0 && len > max) {
		max = max > 3 ? max - 3 : 0;
		while (at < max) {
			unsigned cp;
			int n = mdb_utf8_len(p + at, &cp);

			if (n == 0)
				n = 1;
			if (at + n > max)
				break;
			at += put_char(f, p + at);
		}
		fputs("...", f);
		return;
	}
	while (p[at])
		at += put_char(f, p + at);
}

void svg_begin(FILE *f, int w, int h, const char *title)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\">\n<title>", w, h, w, h);
	svg_escape(f, title, -1);
	fprintf(f, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" "
		"height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
}

void svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

void svg_rect(FILE *f, double x, double y, double w, double h,
	      const char *fill, const char *tip)
{
	fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		"height=\"%.2f\" fill=\"%s\"", x, y, w > 0 ? w : 0,
		h > 0 ? h : 0, fill);
	if (!tip) {
		fputs("/>\n", f);
		return;
	}
	fputs("><title>", f);
	svg_escape(f, tip, -1);
	fputs("</title></rect>\n", f);
}

void svg_text(FILE *f, double x, double y, const char *anchor, int size,
	      const char *s, long max)
{
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\" "
		"font-size=\"%d\">", x, y, anchor, size);
	svg_escape(f, s, max);
	fputs("</text>\n", f);
}

void svg_line(FILE *f, double x1, double y1, double x2, double y2,
	      const char *stroke)
{
	fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
		"stroke=\"%s\"/>\n", x1, y1, x2, y2, stroke);
}

void svg_polyline(FILE *f, const double *xs, const double *ys, int n,
		  const char *stroke)
{
	fputs("<polyline fill=\"none\" stroke-width=\"2\" points=\"", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%.2f,%.2f", i ? " " : "", xs[i], ys[i]);
	fprintf(f, "\" stroke=\"%s\"/>\n", stroke);
}

void svg_group(char *buf, size_t len, long long v)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%lld", v), o = 0;
	int neg = v < 0;

	for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
		buf[o++] = digits[i];
		/* a comma after each digit that has a multiple of 3 after it */
		if (i >= neg && i < n - 1 && (n - 1 - i) % 3 == 0)
			buf[o++] = ',';
	}
	if (len) /* o < len: the loop leaves room for the NUL */
		buf[o] = '\0';
}

void svg_colour(char *buf, size_t len, const char *name)
{
	unsigned h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	snprintf(buf, len, "rgb(%u,%u,%u)", 205 + h % 50,
		 (h >> 8) % 180 + 40, (h >> 16) % 55);
}
