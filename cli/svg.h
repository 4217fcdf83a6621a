/* SPDX-License-Identifier: MIT */
/*
 * A small SVG writer: a document, rectangles, lines, polylines and text,
 * with every piece of text XML-escaped (untrusted names are written as
 * character data or attribute values that cannot end early; bytes that are
 * not UTF-8 and control characters XML forbids become '?').  No fonts or
 * links: a file any browser shows offline (the flame graph of
 * cli/picture.c adds its own script).
 */
#ifndef MDB_SVG_H
#define MDB_SVG_H

#include <stdio.h>

/* @s XML-escaped (&, <, >, ", ') to @f; at most @max bytes of @s
 * (cut on a character boundary, "..." added when cut); max < 0: all. */
void svg_escape(FILE *f, const char *s, long max);

/* <svg> with a viewBox of @w x @h, a white background and a <title>. */
void svg_begin(FILE *f, int w, int h, const char *title);
void svg_end(FILE *f);

/* A filled rectangle; @tip, when not NULL, is its tooltip (<title>). */
void svg_rect(FILE *f, double x, double y, double w, double h,
	      const char *fill, const char *tip);

/* Text at (@x, @y); @anchor "start", "middle" or "end"; @max as
 * svg_escape. */
void svg_text(FILE *f, double x, double y, const char *anchor, int size,
	      const char *s, long max);

void svg_line(FILE *f, double x1, double y1, double x2, double y2,
	      const char *stroke);

/* A polyline through the @n points (@xs[i], @ys[i]). */
void svg_polyline(FILE *f, const double *xs, const double *ys, int n,
		  const char *stroke);

/* @v with its thousands grouped ("-1,234,567"), as tables print figures,
 * into @buf. */
void svg_group(char *buf, size_t len, long long v);

/* A deterministic warm colour for @name ("rgb(r,g,b)") into @buf. */
void svg_colour(char *buf, size_t len, const char *name);

#endif
