# SPDX-License-Identifier: MIT
# One of memdb's --help texts as man(7) requests (see tools/mkman.sh).
#
# The help texts have one shape, which this follows:
#   usage: lines                    -> a no-fill block (mode=command) or
#                                      nothing (mode=main: the SYNOPSIS
#                                      has them)
#   paragraphs at column 0          -> filled paragraphs; a lone short
#                                      line ending in ':' ("Options:")
#                                      is a subsection heading
#   indented "TAG  text" tables     -> tagged paragraphs (.TP); a line
#                                      indented past the text column
#                                      starts a line of its own
#   other indented blocks, and all
#   of "Example(s):"                -> no-fill, verbatim
# mode=verbatim prints escaped lines only; mode=list reads the whole
# input as one table.

function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

function indent(s) {
	match(s, /^ */)
	return RLENGTH
}

# Is the block of lines[a..b] (indented) a table: does every line that
# starts an entry (one not indented past the entry before) have its tag,
# two spaces, then text?
function is_table(a, b,    i, at) {
	at = -1
	for (i = a; i <= b; i++) {
		if (at >= 0 && indent(lines[i]) > at + 2)
			continue
		if (!match(lines[i], /^ *[^ ]+( [^ ]+)*  +[^ ]/))
			return 0
		at = indent(lines[i])
	}
	return 1
}

function table(a, b,    i, n, at, base, tag, text, w, dense) {
	at = -1
	w = 0
	# entries of one line each are set without a blank line between
	# (from the second on: the first keeps the space before the table)
	dense = 1
	for (i = a + 1; i <= b; i++)
		if (indent(lines[i]) > indent(lines[i - 1]) + 2)
			dense = 0
	for (i = a; i <= b; i++) {
		n = indent(lines[i])
		if (at >= 0 && n > at + 2) {
			# the text's next line; deeper than the first such
			# line: a line of its own (a list inside the entry)
			if (base < 0)
				base = n
			if (n > base)
				print ".br"
			print esc(substr(lines[i], n + 1))
			continue
		}
		at = n
		base = -1
		match(lines[i], /^ *[^ ]+( [^ ]+)*  +/)
		tag = substr(lines[i], n + 1, RLENGTH - n)
		sub(/ +$/, "", tag)
		text = substr(lines[i], RLENGTH + 1)
		# the help's own column for the text, as the table's indent
		if (!w)
			w = RLENGTH - n < 26 ? RLENGTH - n : 0
		print w ? ".TP " w : ".TP"
		print "\\fB" esc(tag) "\\fR"
		print esc(text)
		if (dense && i == a)
			print ".PD 0"
	}
	if (dense)
		print ".PD"
}

function verbatim(a, b,    i) {
	print ".PP"
	print ".RS 4"
	print ".nf"
	for (i = a; i <= b; i++)
		print esc(substr(lines[i], 3))
	print ".fi"
	print ".RE"
}

{ lines[++nl] = $0 }

END {
	if (mode == "verbatim") {
		for (i = 1; i <= nl; i++)
			print esc(lines[i])
		exit
	}
	if (mode == "list") {
		table(1, nl)
		exit
	}
	i = 1
	# the usage block
	if (lines[1] ~ /^usage: /) {
		j = 1
		while (j < nl && lines[j + 1] != "")
			j++
		if (mode == "command") {
			print ".nf"
			for (k = 1; k <= j; k++) {
				s = lines[k]
				sub(/^usage: /, "", s)
				sub(/^       /, "", s)
				print "\\fB" esc(s) "\\fR"
			}
			print ".fi"
		}
		i = j + 1
	}
	heading = ""
	while (i <= nl) {
		if (lines[i] == "") {
			i++
			continue
		}
		# a run of lines up to a blank line or a change of indentation
		j = i
		if (indent(lines[i]) == 0) {
			while (j < nl && lines[j + 1] != "" &&
			       indent(lines[j + 1]) == 0)
				j++
			if (i == j && lines[i] ~ /:$/ && length(lines[i]) < 40 &&
			    lines[i + 1] ~ /^  /) {
				heading = lines[i]
				sub(/:$/, "", heading)
				print ".SS \"" esc(heading) "\""
			} else {
				heading = ""
				print ".PP"
				for (k = i; k <= j; k++)
					print esc(lines[k])
			}
		} else {
			while (j < nl && lines[j + 1] != "" &&
			       indent(lines[j + 1]) > 0)
				j++
			if (heading ~ /^Examples?$/ || !is_table(i, j))
				verbatim(i, j)
			else
				table(i, j)
		}
		i = j + 1
	}
}
