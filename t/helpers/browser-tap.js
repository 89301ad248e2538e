// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the browser tests' node scripts (svg-browser.js, speedscope-browser.js)
 * share: TAP lines ("ok N - ..." / "not ok N - ...", a failure's note as
 * "# " lines) that the shell test renumbers into its own (t/lib/browser.sh),
 * headless Chromium launched by puppeteer-core, and the run's exit status.
 */
'use strict';
const puppeteer = require('puppeteer-core');

let n = 0, failed = 0;
function ok(cond, name, note) {
	n++;
	if (!cond)
		failed++;
	console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${name}`);
	if (!cond && note)
		console.log(String(note).split('\n').map((l) => '# ' + l).join('\n'));
}

/* Headless Chromium at CHROMIUM; opts are puppeteer's, opts.args added. */
function launch(chromium, opts = {}) {
	return puppeteer.launch({
		...opts, executablePath: chromium, headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
			...(opts.args || [])],
	});
}

/* Run the async MAIN; exit 1 if a check failed or MAIN threw (one more "not ok"). */
function run(main) {
	main().then(() => process.exit(failed ? 1 : 0), (e) => {
		console.log(`not ok ${n + 1} - the browser run failed`);
		console.log('# ' + String(e.stack || e).split('\n').join('\n# '));
		process.exit(1);
	});
}

module.exports = { ok, launch, run };
