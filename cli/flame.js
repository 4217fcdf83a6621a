/* SPDX-License-Identifier: MIT */
/*
 * The flame graph's script (cli/picture.c writes it into the SVG, in CDATA,
 * called with the total bytes, the left edge and the width of the graph):
 * click a frame to zoom to it, type a regular expression or text in the
 * box to highlight the frames it matches; zoom=ID and s=TEXT in the
 * address's query or fragment do the same when the picture opens.  It
 * must never hold what ends a CDATA section (tests/test_html_page.c).
 */
(function (total, x0, fw) {
	"use strict";
	var all = document.getElementsByTagName("script");
	var svg = (document.currentScript || all[all.length - 1]).parentNode;
	var one = function (c) { return svg.querySelector("." + c); };
	var reset = one("fg-reset"), box = one("fg-search");
	var input = box.querySelector("input");
	var match = one("fg-match"), info = one("fg-info");
	var hint = "click a frame to zoom in, type in the box to search";
	var highlight = "rgb(230,0,230)";
	var frames = [], byId = Object.create(null);
	var gs = svg.querySelectorAll("g.f");
	var i;

	for (i = 0; i < gs.length; i++) {
		var g = gs[i], r = g.querySelector("rect");
		var tip = r.querySelector("title").textContent;
		var f = { g: g, r: r, t: g.querySelector("text"), tip: tip,
			  name: tip.slice(0, tip.lastIndexOf(": bytes=")),
			  fill: r.getAttribute("fill"),
			  x: +g.getAttribute("data-x"),
			  b: +g.getAttribute("data-b"),
			  d: +g.getAttribute("data-d") };
		frames.push(f);
		byId[g.id] = f;
		g.style.cursor = "pointer";
	}
	/* the label of a box @w wide, as memdb writes it */
	function fit(name, w) {
		var n = Math.floor((w - 6) / 6.5);

		if (n < 4)
			return "";
		return name.length <= n ? name : name.slice(0, n - 3) + "...";
	}
	function place(f, x, w, opacity) {
		f.g.style.display = "";
		f.g.setAttribute("opacity", opacity);
		f.r.setAttribute("x", x.toFixed(2));
		f.r.setAttribute("width", Math.max(w - 0.5, 0).toFixed(2));
		f.t.setAttribute("x", (x + 3).toFixed(2));
		f.t.textContent = fit(f.name, w);
	}
	/* @z fills the width, its ancestors stay (faded), the rest goes;
	 * null: the whole graph */
	function zoom(z) {
		var lo = z ? z.x : 0, span = z ? z.b : total;

		if (!(span > 0))
			return;
		frames.forEach(function (f) {
			if (z && f.d < z.d && f.x <= z.x &&
			    f.x + f.b >= z.x + z.b)
				place(f, x0, fw, 0.5);
			else if ((!z || f.d >= z.d) && f.x >= lo &&
				 f.x + f.b <= lo + span)
				place(f, x0 + fw * (f.x - lo) / span,
				      fw * f.b / span, 1);
			else
				f.g.style.display = "none";
		});
		if (z)
			reset.removeAttribute("display");
		else
			reset.setAttribute("display", "none");
	}
	function group(n) {
		var s = String(n), o = "";

		while (s.length > 3) {
			o = "," + s.slice(-3) + o;
			s = s.slice(0, -3);
		}
		return s + o;
	}
	/* frames whose name matches @q (a regular expression, else a
	 * substring) highlighted; the share of all bytes under them */
	function search(q) {
		var test = null, hits = [], sum = 0, end = -1;

		if (q) {
			try {
				var re = new RegExp(q);
				test = function (s) { return re.test(s); };
			} catch (e) {
				test = function (s) {
					return s.indexOf(q) >= 0;
				};
			}
		}
		frames.forEach(function (f) {
			var hit = test !== null && test(f.name);

			f.r.setAttribute("fill", hit ? highlight : f.fill);
			if (hit)
				hits.push(f);
		});
		/* boxes nest or are apart: count the bytes under their union */
		hits.sort(function (a, b) { return a.x - b.x || b.b - a.b; });
		hits.forEach(function (f) {
			if (f.x + f.b > end) {
				sum += f.x + f.b - Math.max(f.x, end);
				end = f.x + f.b;
			}
		});
		match.textContent = test === null ? "" : "matched " +
			(100 * sum / total).toFixed(2) + "% of the bytes (" +
			group(sum) + " of " + group(total) + ")";
	}
	/* zoom=ID and s=TEXT in the address's query or fragment */
	function param(k) {
		var l = window.location;
		var ps = (l.search.slice(1) + "&" + l.hash.slice(1)).split("&");

		for (var j = 0; j < ps.length; j++) {
			var e = ps[j].indexOf("=");

			if (e > 0 && ps[j].slice(0, e) === k) {
				var v = ps[j].slice(e + 1);

				try {
					return decodeURIComponent(v);
				} catch (x) {
					return v;
				}
			}
		}
		return null;
	}
	function frameOf(ev) {
		for (var n = ev.target; n && n !== svg; n = n.parentNode)
			if (n.getAttribute && n.getAttribute("class") === "f")
				return byId[n.id];
		return null;
	}
	svg.addEventListener("click", function (ev) {
		var f = frameOf(ev);

		if (f)
			zoom(f);
	});
	svg.addEventListener("mouseover", function (ev) {
		var f = frameOf(ev);

		info.textContent = f ? f.tip : hint;
	});
	reset.addEventListener("click", function () { zoom(null); });
	reset.style.cursor = "pointer";
	input.addEventListener("input", function () { search(input.value); });
	box.removeAttribute("display");
	info.textContent = hint;
	if (param("zoom") !== null && byId[param("zoom")])
		zoom(byId[param("zoom")]);
	if (param("s") !== null) {
		input.value = param("s");
		search(input.value);
	}
})
