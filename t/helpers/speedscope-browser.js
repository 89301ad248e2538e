// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Open a profile in speedscope (its built web app from npm) in headless
 * Chromium (puppeteer-core), as a user does: the landing page's Browse
 * button, the file picked. Then check what speedscope imported against
 * what the test read from the file by other means:
 *
 *   node speedscope-browser.js CHROMIUM INDEX.html PROFILE EXPECT
 *
 * EXPECT is text, one item a line:
 *   title T       the window title speedscope sets once a profile imported
 *                 ("NAME - speedscope"; set only after a successful import)
 *   profile P     a profile (thread) speedscope must list, by its name in
 *                 the toolbar's profile select; the frames that follow are
 *   frame F       ... the frame names of that profile, all of them: the set
 *                 of names in speedscope's Sandwich table must equal them
 *                 (text after " {" is dropped: speedscope names a trace
 *                 event's frame by its name and its args)
 *   top F         ... the frame with the largest self time in that profile
 *
 * speedscope draws the flame graphs on a canvas; its Sandwich view is a
 * DOM table of every frame (Symbol Name, Total, Self), so that is what is
 * read: the window is made tall enough that the table's virtual list
 * draws every row. Prints TAP lines; the shell test counts them.
 */
'use strict';
const fs = require('fs');
const path = require('path');
const { ok, launch, run } = require('./browser-tap.js');

const [chromium, index, profPath, expectPath] = process.argv.slice(2);

function readExpect(text) {
	const want = { title: null, profiles: new Map() };
	let cur = null;
	for (const line of text.split('\n')) {
		const m = /^(\w+) (.*)$/.exec(line);
		if (!m)
			continue;
		if (m[1] === 'title')
			want.title = m[2];
		else if (m[1] === 'profile')
			want.profiles.set(m[2], cur = { frames: new Set(), top: null });
		else if (m[1] === 'frame')
			cur.frames.add(m[2]);
		else if (m[1] === 'top')
			cur.top = m[2];
	}
	return want;
}

/*
 * In the page: the toolbar's profile name (with more than one profile, a
 * select: the name shown and the list of every profile it offers, as rows
 * titled by name) and the rows of the Sandwich table.
 */
function sandwich() {
	const modes = Array.from(document.querySelectorAll('div')).find((d) =>
		d.children.length === 3 && /Time Order/.test(d.children[0].textContent) &&
		/Sandwich/.test(d.children[2].textContent));
	/* one profile: its name as text; more: a select (a span and a hidden list) */
	const next = modes && modes.nextSibling;
	const center = next && next.nodeType === Node.ELEMENT_NODE ? next : null;
	const label = center && center.querySelector('span');
	const shown = label ? label.firstChild.textContent.trim() :
		next && next.nodeType === Node.TEXT_NODE ? next.textContent.trim() : null;
	const list = center ? Array.from(center.querySelectorAll('tr[title]')).map((tr) => tr.title) : [];
	const rows = Array.from(document.querySelectorAll('tr'))
		.filter((tr) => !(center && center.contains(tr)))
		.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent))
		.filter((r) => r.length === 3);
	return { shown, list: list.length ? list : [shown], rows };
}

/* "12.5ms (97%)" -> 97, "(>99%)" -> 99.5, "(<0.01%)" -> 0.005 */
const pct = (s) => {
	const m = /\(([<>]?)([\d.]+)%\)/.exec(s);
	return !m ? 0 : m[1] === '>' ? Number(m[2]) + 0.5 : m[1] === '<' ? Number(m[2]) / 2 : Number(m[2]);
};

run(async () => {
	const want = readExpect(fs.readFileSync(expectPath, 'utf8'));
	/* speedscope draws with WebGL: Chromium's software one, asked for by name */
	const browser = await launch(chromium, {
		defaultViewport: { width: 1200, height: 6000 },
		args: ['--enable-unsafe-swiftshader'],
	});
	try {
		const page = (await browser.pages())[0] || await browser.newPage();
		const errors = [];
		page.on('pageerror', (e) => errors.push('page error: ' + String(e)));
		page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
		/* speedscope reports a file it cannot import with alert() */
		page.on('dialog', (d) => { errors.push('dialog: ' + d.message()); d.dismiss(); });

		await page.goto('file://' + path.resolve(index) + '#view=sandwich', { waitUntil: 'load' });
		const [chooser] = await Promise.all([page.waitForFileChooser({ timeout: 20000 }),
			page.click('label[for="file"]')]);
		await chooser.accept([path.resolve(profPath)]);
		/* the title is set once the import succeeded, before the view draws */
		const loaded = await page.waitForFunction(() => / - speedscope$/.test(document.title),
			{ timeout: 30000 }).then(() => true, () => false);
		const title = await page.title();
		ok(loaded && title === want.title, `speedscope imports it: the title is "${want.title}"`,
			`title "${title}"\n${errors.join('\n')}`);
		if (!loaded)
			throw new Error('no profile loaded');
		await page.waitForFunction(() => document.querySelectorAll('tr td').length > 0,
			{ timeout: 20000 });

		/* every profile the select offers, by "n" (next profile) from the first */
		await page.evaluate(`window.ftkSandwich = ${sandwich}`);
		const first = await page.evaluate(sandwich);
		ok(first.list.length === want.profiles.size && first.list.every((p) => want.profiles.has(p)),
			`speedscope lists the ${want.profiles.size} profile(s) expected`,
			`listed: ${first.list.join(' | ')}\nwant: ${[...want.profiles.keys()].join(' | ')}`);
		const seen = new Map([[first.shown, first.rows]]);
		for (let i = 1; i < first.list.length; i++) {
			const prev = (await page.evaluate(sandwich)).shown;
			await page.keyboard.press('n');
			await page.waitForFunction((p) => {
				const s = window.ftkSandwich();
				return s.shown !== p && s.rows.length > 0;
			}, { timeout: 20000 }, prev);
			const s = await page.evaluate(sandwich);
			seen.set(s.shown, s.rows);
		}
		for (const [p, w] of want.profiles) {
			const rows = seen.get(p) || [];
			const got = new Set(rows.map((r) => r[2].replace(/ \{.*$/, '')));
			const missing = [...w.frames].filter((f) => !got.has(f));
			const extra = [...got].filter((f) => !w.frames.has(f));
			ok(rows.length > 0 && !missing.length && !extra.length,
				`${p}: its ${w.frames.size} frame names, and no other`,
				`missing: ${missing.join(' ')}\nextra: ${extra.join(' ')}`);
			if (w.top) {
				const top = rows.reduce((b, r) => (!b || pct(r[1]) > pct(b[1]) ? r : b), null);
				ok(top && top[2] === w.top, `${p}: ${w.top} has the most self time`,
					rows.map((r) => r.join(" | ")).join("\n"));
			}
		}
		ok(!errors.length, 'no console error, page error or alert', errors.join('\n'));
	} finally {
		await browser.close();
	}
});
