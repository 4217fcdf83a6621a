// SPDX-License-Identifier: MIT
/*
 * memdb as a Debian tool: the man page generated from the --help texts
 * renders without a warning (groff -ww, man -l) and has a section for
 * every command with every option its --help lists; the bash completion,
 * sourced in bash, offers the commands, options, reports and values the
 * help texts name; make install puts the binary, memdb.1 (uncompressed),
 * the completion and the README and docs/ under DESTDIR/PREFIX and make uninstall
 * takes them all away again; an ingest on a terminal shows how far it is
 * (percent of the input, which this checks against the events counted).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testlib.h"

static void assert_has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' not found in:\n%.3000s", needle, hay);
}

/* `memdb ARGS` to stdout, malloc'ed; it must succeed. */
static char *memdb_out(const char *args)
{
	struct run r;
	char *out;

	run(&r, "'%s' %s", env("MEMDB"), args);
	assert_run_ok(&r);
	out = strdup(r.out);
	run_free(&r);
	return out;
}

/* The commands 'memdb --help' lists, one per line. */
static char *commands(void)
{
	struct run r;
	char *out;

	run(&r, "'%s' --help | awk '/^Commands:/ { on = 1; next } "
		"on && /^  [a-z]/ { print $1; next } on { exit }'",
		env("MEMDB"));
	assert_run_ok(&r);
	out = strdup(r.out);
	run_free(&r);
	assert_true(strlen(out) > 20);
	return out;
}

/* ---- the man page ----------------------------------------------------- */

static int have(const char *tool)
{
	struct run r;
	int ok;

	run(&r, "command -v %s", tool);
	ok = r.status == 0;
	run_free(&r);
	return ok;
}

static void test_man_renders(void **state)
{
	const char *man = env("MEMDB_MAN");
	struct run r;
	char *cmds = commands(), *text;

	(void)state;
	if (!have("groff") || !have("man")) {
		print_message("skipped: groff or man (groff-base, man-db) "
			      "not installed\n");
		free(cmds);
		skip();
	}
	/* every warning groff knows, as the issue asks */
	run(&r, "groff -ww -man -Tutf8 -z '%s'", man);
	assert_run_ok(&r);
	assert_string_equal(r.err, "");
	run_free(&r);
	run(&r, "MANWIDTH=80 MANPAGER=cat PAGER=cat man -l '%s'", man);
	assert_run_ok(&r);
	assert_string_equal(r.err, "");
	assert_has(r.out, "NAME");
	assert_has(r.out, "SYNOPSIS");
	assert_has(r.out, "SEE ALSO");
	run_free(&r);

	/* plain ASCII for the comparisons: no hyphen glyphs, no bold */
	run(&r, "groff -man -Tascii -P-c -P-b -P-u '%s'", man);
	assert_run_ok(&r);
	text = strdup(r.out);
	run_free(&r);
	for (char *c = cmds; *c; c += strcspn(c, "\n") + 1) {
		int n = (int)strcspn(c, "\n");
		char *sect, *name = strndup(c, (size_t)n), *opts, *o;
		char *end;

		sect = strf("MEMDB %s", name);
		for (char *u = sect; *u; u++)
			if (*u >= 'a' && *u <= 'z')
				*u = (char)(*u - 'a' + 'A');
		o = strstr(text, sect);
		if (!o)
			fail_msg("no section '%s' in memdb.1", sect);
		/* the section runs to the next one at column 0 */
		end = o + strlen(sect);
		while ((end = strchr(end, '\n')) && end[1] &&
		       (end[1] == ' ' || end[1] == '\n'))
			end++;
		/* every long option of the command's --help is in it */
		run(&r, "'%s' %s --help | grep -o -- '^ *\\(-[a-zA-Z], \\)\\?"
			"--[a-z-]*' | sed 's/.*--/--/'", env("MEMDB"), name);
		opts = strdup(r.out);
		run_free(&r);
		assert_true(strlen(opts) > 5);
		for (char *l = opts; *l; l += strcspn(l, "\n") + 1) {
			char *opt = strndup(l, strcspn(l, "\n")), *at;
			int found = 0;

			for (at = o; (at = strstr(at, opt)) &&
			     (!end || at < end); at++)
				found = 1;
			if (!found)
				fail_msg("memdb.1, section %s: no %s", sect,
					 opt);
			free(opt);
		}
		free(opts);
		free(sect);
		free(name);
	}
	/* every report, with its line of help */
	{
		char *list = memdb_out("report list");

		for (char *l = list; *l; l += strcspn(l, "\n") + 1) {
			char *name = strndup(l, strcspn(l, " \n"));

			assert_has(strstr(text, "REPORTS"), name);
			free(name);
		}
		free(list);
	}
	free(text);
	free(cmds);
}

/* ---- bash completion -------------------------------------------------- */

/* The candidates bash completion offers for the words @line (the last
 * one being completed, may be empty), sorted, one line. */
static char *complete(const char *line)
{
	static const char script[] =
		"source \"$1\"\n"
		"read -ra COMP_WORDS <<< \"$2\"\n"
		"[ \"${2: -1}\" = \" \" ] && COMP_WORDS+=(\"\")\n"
		"COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
		"_memdb\n"
		"[ ${#COMPREPLY[@]} -gt 0 ] && "
		"printf '%s\\n' \"${COMPREPLY[@]}\" | sort | tr '\\n' ' '\n"
		"exit 0\n";
	char *d = tmpdir("complete"), *sh = path_in(d, "c.sh"), *out;
	FILE *f = fopen(sh, "w");
	struct run r;

	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	run(&r, "bash '%s' '%s' '%s'", sh, env("MEMDB_COMPLETION"), line);
	assert_run_ok(&r);
	assert_string_equal(r.err, "");
	out = strdup(r.out);
	run_free(&r);
	free(sh);
	free(d);
	return out;
}

/* Lines of @text sorted and joined by spaces, as complete() gives. */
static char *sorted_words(const char *text)
{
	struct run r;
	char *out;

	run(&r, "printf '%%s' '%s' | sort | tr '\\n' ' '", text);
	out = strdup(r.out);
	run_free(&r);
	return out;
}

static void test_completion(void **state)
{
	char *got, *want, *cmds = commands(), *list, *names;
	struct run r;

	(void)state;
	/* commands: those memdb --help lists, and its two options */
	got = complete("memdb ");
	list = strf("%s--help\n--version\n", cmds);
	want = sorted_words(list);
	assert_string_equal(got, want);
	free(list);
	free(got);
	free(want);

	got = complete("memdb rep");
	assert_string_equal(got, "report ");
	free(got);

	/* report names: those of memdb report list, and list */
	run(&r, "'%s' report list | awk '{ print $1 } END { print \"list\" }'"
		" | sort | tr '\\n' ' '", env("MEMDB"));
	names = strdup(r.out);
	run_free(&r);
	got = complete("memdb report ");
	assert_string_equal(got, names);
	free(got);
	free(names);

	/* options, option values and what follows an option's argument
	 * (hand-written from the help texts): words, then the candidates */
	static const char *const want_of[][2] = {
		{ "memdb report callsites --by ",
		  "cache comm label pid site type " },
		{ "memdb report -n 5 --source 2 fragmentation --s",
		  "--show --site --sort --source " },
		{ "memdb report zones --format ", "csv folded json svg table " },
		{ "memdb sql -f ", "csv json table " },
		{ "memdb ingest --endian ", "big little " },
		{ "memdb ingest --format perf", "perf-data " },
		{ "memdb ingest --fo", "--force --format " },
		{ "memdb record --d", "--duration " },
	};
	for (size_t i = 0; i < sizeof(want_of) / sizeof(want_of[0]); i++) {
		got = complete(want_of[i][0]);
		if (strcmp(got, want_of[i][1]))
			fail_msg("'%s': '%s', not '%s'", want_of[i][0], got,
				 want_of[i][1]);
		free(got);
	}
	/* file names after a FILE option and for ingest's PATHs */
	{
		static const char *const before[] = { "--kallsyms ", "" };
		char *d = tmpdir("compl"), *f = path_in(d, "kallsyms-a");
		FILE *fp = fopen(f, "w");

		assert_non_null(fp);
		fclose(fp);
		want = strf("%s ", f);
		for (size_t i = 0; i < 2; i++) {
			char *line = strf("memdb ingest %s%s/kall", before[i],
					  d);

			got = complete(line);
			assert_string_equal(got, want);
			free(got);
			free(line);
		}
		free(want);
		free(f);
		free(d);
	}
	free(cmds);
}

/* ---- make install / uninstall ----------------------------------------- */

/* The build's SAN setting, so that make, if it relinks, links alike. */
static const char *san(void)
{
	const char *s = getenv("MEMDB_SAN");

	return s ? s : "";
}

/*
 * The README's walk: sqlite3 and Python read a memdb database's alloc
 * and bad_free once they load the installed extension, the same rows
 * memdb reads, and slab_scan sums them per site as SQL over the rows
 * does (in memdb sql too); without it, SQLite says which module is
 * missing.
 */
static void load_walk(const char *memdb, const char *dest)
{
	char *db = strf("%s/walk.db", dest), *ext = strf("%s/usr/lib/memdb/"
							 "memdb", dest);
	const char *q = "SELECT count(*), sum(bytes_alloc), sum(ptr % 4099), "
			"sum(end_seq), (SELECT count(*) FROM bad_free), "
			"(SELECT sum(seq) + sum(class) FROM bad_free) "
			"FROM alloc";
	const char *scan = "SELECT count(*), sum(hits), sum(bytes_alloc), "
			   "sum(live) FROM slab_scan(1, 'site')";
	struct run r;
	char *want, *scan_want;

	run(&r, "'%s' ingest -q -d '%s' '%s/real-tracefs'", memdb, db,
	    env("TESTDATA"));
	assert_run_ok(&r);
	run_free(&r);
	run(&r, "'%s' sql -d '%s' -f csv \"%s\" | tail -1", memdb, db, q);
	assert_run_ok(&r);
	want = r.out;
	r.out = NULL;
	run_free(&r);
	assert_has(want, "1107,");
	assert_has(want, ",259,");
	/* slab_scan, in memdb sql and the extension: its groups per site
	 * as SQL over the slab rows counts them */
	run(&r, "'%s' sql -d '%s' -f csv \"SELECT count(DISTINCT site_id), "
	    "count(*), sum(bytes_alloc), sum(state = 0) FROM alloc WHERE "
	    "type < 2\" | tail -1", memdb, db);
	assert_run_ok(&r);
	scan_want = r.out;
	r.out = NULL;
	run_free(&r);
	run(&r, "'%s' sql -d '%s' -f csv \"%s\" | tail -1", memdb, db, scan);
	assert_run_ok(&r);
	assert_string_equal(r.out, scan_want);
	run_free(&r);
	if (have("sqlite3")) {
		run(&r, "sqlite3 -csv '%s' '.load %s' \"%s\"", db, ext, q);
		assert_run_ok(&r);
		assert_string_equal(r.out, want);
		run_free(&r);
		run(&r, "sqlite3 -csv '%s' '.load %s' \"%s\"", db, ext, scan);
		assert_run_ok(&r);
		assert_string_equal(r.out, scan_want);
		run_free(&r);
		run(&r, "sqlite3 '%s' 'SELECT count(*) FROM alloc'", db);
		assert_int_equal(r.status, 1);
		assert_has(r.err, "no such module: memdb_alloc");
		run_free(&r);
	} else {
		print_message("sqlite3 not installed: its .load not tried\n");
	}
	/* Debian's python3 (a Python built without loadable extensions
	 * has no enable_load_extension) */
	run(&r, "/usr/bin/python3 -c 'import sqlite3, sys; "
		"c = sqlite3.connect(sys.argv[1]); "
		"c.enable_load_extension(True); c.load_extension(sys.argv[2]); "
		"print(*c.execute(sys.argv[3]).fetchone(), sep=\",\")' "
		"'%s' '%s' \"%s\"", db, ext, q);
	if (r.status == 0)
		assert_string_equal(r.out, want);
	else
		print_message("/usr/bin/python3 cannot load extensions: %s\n",
			      r.err);
	run_free(&r);
	unlink(db);
	free(want);
	free(scan_want);
	free(ext);
	free(db);
}

static void test_install_uninstall(void **state)
{
	char *root = strf("%s/..", env("TESTS_DIR"));
	char *dest = tmpdir("destdir"), *p;
	struct run r;

	(void)state;
	if (!have("make")) {
		print_message("skipped: make not installed\n");
		free(dest);
		free(root);
		skip();
	}
	/* the files are built: install copies them, nothing is rebuilt */
	run(&r, "env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C '%s' "
		"BUILD='%s' SAN='%s' DESTDIR='%s' PREFIX=/usr install", root,
		env("MEMDB_BUILD"), san(), dest);
	if (r.status)
		fail_run(&r, "make install: %s", r.out);
	run_free(&r);
	run(&r, "cd '%s' && find . -type f | sort", dest);
	assert_has(r.out, "./usr/bin/memdb\n");
	assert_has(r.out, "./usr/lib/memdb/memdb.so\n");
	assert_has(r.out, "./usr/share/man/man1/memdb.1\n");
	assert_has(r.out, "./usr/share/bash-completion/completions/memdb\n");
	assert_has(r.out, "./usr/share/doc/memdb/README.md\n");
	/* and the docs/ directory's references */
	assert_has(r.out, "./usr/share/doc/memdb/design.");
	assert_has(r.out, "./usr/share/doc/memdb/formats.");
	assert_has(r.out, "./usr/share/memdb/queries/callsites.sql\n");
	run_free(&r);
	/* the page is the generated one, uncompressed, and man reads it */
	run(&r, "cmp '%s' '%s/usr/share/man/man1/memdb.1'", env("MEMDB_MAN"),
	    dest);
	assert_run_ok(&r);
	run_free(&r);
	if (have("man")) {
		run(&r, "MANPAGER=cat MANWIDTH=80 man -l "
			"'%s/usr/share/man/man1/memdb.1' | head -3", dest);
		assert_run_ok(&r);
		assert_has(r.out, "MEMDB(1)");
		run_free(&r);
	}
	p = strf("%s/usr/bin/memdb", dest);
	run(&r, "'%s' --version", p);
	assert_run_ok(&r);
	assert_has(r.out, "memdb ");
	run_free(&r);
	load_walk(p, dest);
	free(p);

	run(&r, "env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C '%s' "
		"BUILD='%s' SAN='%s' DESTDIR='%s' PREFIX=/usr uninstall", root,
		env("MEMDB_BUILD"), san(), dest);
	assert_run_ok(&r);
	run_free(&r);
	run(&r, "cd '%s' && find . -type f; find . -path '*memdb*'", dest);
	assert_string_equal(r.out, "");
	run_free(&r);
	free(dest);
	free(root);
}

/* ---- progress on a terminal ------------------------------------------- */

static void test_progress(void **state)
{
	char *d = tmpdir("progress"), *trace = path_in(d, "trace");
	char *db = fresh_db(d, "p.db");
	struct run r;
	int lines = 0, last = -1;
	/* kmemtrace-ftrace records: 44 bytes an event, 106 MB, over half a
	 * second of ingest, time for a redraw or more */
	const double events = 2400000;
	double secs = 0;

	(void)state;
	if (!have("script")) {
		print_message("skipped: script(1) (bsdutils) not installed\n");
		free(db);
		free(trace);
		free(d);
		skip();
	}
	/* ktgen's records: one size, bytes even over the events */
	run(&r, "'%s' --seed 7 --events %.0f --cpus 2 --format ftrace-bin "
		"'%s'", env("KTGEN"), events, trace);
	assert_run_ok(&r);
	run_free(&r);
	run(&r, "script -qec \"'%s' ingest -d '%s' '%s'\" /dev/null", env("MEMDB"),
	    db, trace);
	assert_run_ok(&r);
	/* "...: 262,144 events, 0.4 s, 33%[, about 1 s left]" per step:
	 * the share of bytes read within 5 points of the share of events */
	for (char *l = r.out; (l = strstr(l, "ingesting '")); l++) {
		char *ev = strstr(l, "': "), *pct;
		double n = 0;
		int p;

		assert_non_null(ev);
		for (ev += 3; *ev && *ev != ' '; ev++)
			if (*ev >= '0' && *ev <= '9')
				n = n * 10 + (*ev - '0');
		pct = strstr(ev, " s, ");
		assert_non_null(pct);
		secs = strtod(strstr(ev, "events, ") ? strstr(ev, "events, ") +
			      8 : ev, NULL);
		p = atoi(pct + 4);
		if (p < 100.0 * n / events - 5 || p > 100.0 * n / events + 5)
			fail_msg("progress %d%% at %.0f of %.0f events", p, n,
				 events);
		assert_true(p >= last);
		last = p;
		lines++;
	}
	/* drawn first at 0.2 s, then every 0.2 s: a line at 0.4 s or later
	 * is the second at least; the time left from 0.5 s on, so a line
	 * drawn at 0.7 s or later has it */
	assert_true(lines >= 1);
	if (secs >= 0.4)
		assert_true(lines >= 2);
	if (secs >= 0.7)
		assert_has(r.out, " s left");
	assert_has(r.out, "2,400,000 events");
	run_free(&r);
	/* not a terminal: no progress line */
	free(db);
	db = fresh_db(d, "q.db");
	run(&r, "'%s' ingest -d '%s' '%s'", env("MEMDB"), db, trace);
	assert_run_ok(&r);
	assert_null(strstr(r.err, "ingesting '"));
	assert_null(strchr(r.err, '\r'));
	run_free(&r);
	run(&r, "rm -f '%s' '%s'/*.db", trace, d);
	run_free(&r);
	free(db);
	free(trace);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_man_renders),
		cmocka_unit_test(test_completion),
		cmocka_unit_test(test_install_uninstall),
		cmocka_unit_test(test_progress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
