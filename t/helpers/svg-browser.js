// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Drive ftprofile's SVG flame graph in headless Chromium (puppeteer-core)
 * and check it against the folded stacks of the same profile:
 *
 *   node svg-browser.js CHROMIUM FILE.svg FILE.folded FUNCTION
 *
 * Prints TAP lines ("ok N - ..." / "not ok N - ...") and "# " notes; the
 * shell test (t/interop/t6120) counts them. FUNCTION is a frame name the
 * profile is known to contain (the search and the zoom use it).
 */
'use strict';
const fs = require('fs');
const path = require('path');
const { ok, launch, run } = require('./browser-tap.js');

const [chromium, svgPath, foldedPath, fn] = process.argv.slice(2);

/* Every prefix of every folded stack, under "all", with its weight. */
function foldedTree(text) {
	const w = new Map();
	let total = 0;
	for (const line of text.split('\n')) {
		const m = /^(.*) (\d+)$/.exec(line);
		if (!m)
			continue;
		const c = Number(m[2]);
		total += c;
		let key = 'all';
		w.set(key, (w.get(key) || 0) + c);
		for (const f of m[1].split(';')) {
			key += ';' + f;
			w.set(key, (w.get(key) || 0) + c);
		}
	}
	return { w, total };
}

/* In the page: every frame's name, geometry, colour and state. */
function frames() {
	return Array.from(document.querySelectorAll('g.f')).map((g, i) => {
		const r = g.getElementsByTagName('rect')[0];
		return {
			i, name: g.getAttribute('data-n'),
			x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),
			fill: r.getAttribute('fill'), m: g.getAttribute('data-m'),
			shown: g.style.display !== 'none',
		};
	});
}

/* Each frame's full stack ("all;comm;main;..."), from the geometry alone. */
function stacks(fr) {
	const byY = [...fr].sort((a, b) => b.y - a.y);	/* the root is lowest */
	const key = new Map();
	for (const f of byY) {
		const parent = byY.find((p) => p.y > f.y && p.y - f.y < 17 && p.y - f.y > 15 &&
			p.x <= f.x + 0.02 && p.x + p.w >= f.x + f.w - 0.02);
		key.set(f.i, parent ? key.get(parent.i) + ';' + f.name : f.name);
	}
	return key;
}

run(async () => {
	const text = fs.readFileSync(svgPath, 'utf8');
	const { w: want, total } = foldedTree(fs.readFileSync(foldedPath, 'utf8'));
	const browser = await launch(chromium);
	try {
		const page = (await browser.pages())[0] || await browser.newPage();
		const errors = [];
		page.on('pageerror', (e) => errors.push(String(e)));
		page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

		/* 1. well-formed XML, and an SVG document once loaded */
		const xml = await page.evaluate((t) => {
			const d = new DOMParser().parseFromString(t, 'image/svg+xml');
			const e = d.getElementsByTagName('parsererror')[0];
			return e ? e.textContent : d.documentElement.nodeName;
		}, text);
		ok(xml === 'svg', 'the SVG parses as XML', xml);
		await page.goto('file://' + path.resolve(svgPath), { waitUntil: 'load' });
		ok(await page.evaluate(() => document.documentElement.nodeName === 'svg' &&
			document.contentType === 'image/svg+xml'), 'Chromium loads it as an SVG document');

		/* 2. widths proportional to the folded counts */
		const W = await page.evaluate(() => +document.documentElement.getAttribute('width'));
		const P = 10, scale = (W - 2 * P) / total;
		const fr0 = await page.evaluate(frames);
		const keys = stacks(fr0);
		let bad = [], seen = new Set();
		for (const f of fr0) {
			const k = keys.get(f.i);
			seen.add(k);
			if (!want.has(k))
				bad.push(`${k}: in the SVG, not in the folded stacks`);
			else if (Math.abs(f.w - want.get(k) * scale) > 0.011)
				bad.push(`${k}: width ${f.w}, ${want.get(k)} of ${total} samples is ${want.get(k) * scale}`);
		}
		ok(fr0.length > 3 && !bad.length, `${fr0.length} frames, each as wide as its samples`,
			bad.slice(0, 5).join('\n'));
		const missing = [...want.keys()].filter((k) => !seen.has(k) && want.get(k) * scale >= 0.1);
		ok(!missing.length, 'every stack of 0.1 pixel or more is drawn', missing.slice(0, 5).join('\n'));
		const target = fr0.filter((f) => f.name === fn);
		ok(target.length > 0, `the known function ${fn} is a frame`);
		const labelled = await page.evaluate(() =>
			Array.from(document.querySelectorAll('g.f text')).some((t) => t.textContent.length > 0));
		ok(labelled, 'the script ran at load: frames are labelled');

		/* 3. search: the known function's frames turn magenta, and only they */
		page.once('dialog', (d) => d.accept('^' + fn + '$'));
		await page.click('#search');
		await page.waitForFunction(() => document.getElementById('matched').textContent !== '');
		const fr1 = await page.evaluate(frames);
		const hit = fr1.filter((f) => f.fill === 'rgb(230,0,230)' || f.m === '1');
		ok(hit.length === target.length && hit.every((f) => f.name === fn && f.m === '1' &&
			f.fill === 'rgb(230,0,230)'), `search ^${fn}$ highlights its ${target.length} frame(s) and no other`,
			hit.map((f) => f.name).join(' '));
		/* fn under fn is inside its outer frame: the share is the outer frames' */
		const outer = [...want.keys()].filter((k) => k.split(';').pop() === fn &&
			!k.split(';').slice(0, -1).includes(fn));
		const share = outer.reduce((s, k) => s + want.get(k), 0) / total;
		const matched = await page.evaluate(() => document.getElementById('matched').textContent);
		ok(matched === 'Matched: ' + (100 * share).toFixed(2) + '%',
			`the matched share is ${fn}'s share of the samples`, `${matched}, want ${(100 * share).toFixed(2)}%`);
		await page.click('#clear');
		const fr2 = await page.evaluate(frames);
		ok(fr2.every((f, i) => f.fill === fr0[i].fill && !f.m), 'Clear restores every colour');

		/* 4. a click zooms a frame to the full width */
		/*
		 * The frame to zoom: one with a child that takes under 60% of the
		 * width, so that the zoom moves things (the widest such); else the
		 * known function's caller.
		 */
		const full = W - 2 * P;
		const parents = new Set(fr0.map((f) => keys.get(f.i).split(';').slice(0, -1).join(';')));
		const cand = fr0.filter((f) => parents.has(keys.get(f.i)) && f.w < 0.6 * full && f.w > 3)
			.sort((a, b) => b.w - a.w);
		const caller = fr0.filter((f) => f.name === fn).sort((a, b) => b.w - a.w)
			.map((f) => fr0.find((p) => keys.get(p.i) === keys.get(f.i).split(';').slice(0, -1).join(';')))[0];
		const zz = cand[0] || caller;
		const zkey = keys.get(zz.i);
		const g = (await page.$$('g.f'))[zz.i];
		await (await g.$('rect')).click();
		const fr3 = await page.evaluate(frames);
		const me = fr3[zz.i];
		ok(Math.abs(me.x - P) < 0.01 && Math.abs(me.w - (W - 2 * P)) < 0.01,
			`a click on ${zkey} zooms it to the full width`, `x ${me.x} width ${me.w}`);
		bad = [];
		for (const f of fr3) {
			const k = keys.get(f.i);
			const inside = k.startsWith(zkey + ';'), above = zkey.startsWith(k + ';') || k === zkey;
			if (inside || above) {
				const wantW = above ? W - 2 * P : fr0[f.i].w * (W - 2 * P) / zz.w;
				if (!f.shown || Math.abs(f.w - wantW) > 0.02)
					bad.push(`${k}: shown ${f.shown} width ${f.w}, want ${wantW}`);
			} else if (f.shown) {
				bad.push(`${k}: shown outside the zoomed frame`);
			}
		}
		ok(!bad.length, 'its descendants scale with it, its ancestors span the width, the rest hide',
			bad.slice(0, 5).join('\n'));

		/* 5. reset */
		await page.click('#reset');
		const fr4 = await page.evaluate(frames);
		ok(fr4.every((f, i) => f.shown && f.x === fr0[i].x && f.w === fr0[i].w),
			'Reset Zoom restores every frame');
		ok(!errors.length, 'no script errors', errors.join('\n'));
	} finally {
		await browser.close();
	}
});
