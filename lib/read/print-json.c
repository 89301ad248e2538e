// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print-json: JSON lines, CSV and Chrome/Perfetto trace output
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "internal.h"
#include "print-local.h"
#include <ftkit/latency.h>

/* ---------------------------------------------------------------- JSON, CSV, chrome */


static void put_fields(struct ftk_printer *p, struct tep_event *ev, struct tep_record *rec)
{
	struct tep_format_field *f;
	unsigned long long v;
	int first = 1, len;
	const char *str;

	fputc('{', p->out);
	for (f = ev ? ev->format.fields : NULL; f; f = f->next) {
		if ((unsigned int)f->offset + f->size > (unsigned int)rec->size)
			continue;
		if (f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) {
			if (!(f->flags & TEP_FIELD_IS_STRING) && !strstr(f->type, "char"))
				continue;
			if ((f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
			    !f->size) {
				/*
				 * A flexible array (ftrace:print's char buf[]):
				 * size 0 in the format, it runs to the end of the
				 * record; libtraceevent gives it a length of 0.
				 */
				str = (const char *)rec->data + f->offset;
				len = rec->size - f->offset;
			} else {
				str = tep_get_field_raw(&p->s, ev, f->name, rec, &len, 0);
			}
			if (!str)
				continue;
			if (str < (const char *)rec->data ||
			    str + len > (const char *)rec->data + rec->size)
				continue;
			fprintf(p->out, "%s\"%s\":", first ? "" : ",", f->name);
			ftk_json_str(p->out, str, len);
			first = 0;
			continue;
		}
		if (f->flags & TEP_FIELD_IS_ARRAY) {
			int el = f->elementsize, n, i;

			/* arrays of numbers (kernel_stack's caller[]) as JSON arrays */
			if (el != 1 && el != 2 && el != 4 && el != 8)
				continue;
			n = f->size / el;
			fprintf(p->out, "%s\"%s\":[", first ? "" : ",", f->name);
			for (i = 0; i < n; i++)
				fprintf(p->out, "%s%llu", i ? "," : "",
					tep_read_number(p->tep, (char *)rec->data + f->offset + i * el, el));
			fputc(']', p->out);
			first = 0;
			continue;
		}
		if (tep_read_number_field(f, rec->data, &v))
			continue;
		fprintf(p->out, "%s\"%s\":", first ? "" : ",", f->name);
		if (f->flags & TEP_FIELD_IS_SIGNED) {
			long long sv = f->size == 1 ? (long long)(int8_t)v :
				       f->size == 2 ? (long long)(int16_t)v :
				       f->size == 4 ? (long long)(int32_t)v : (long long)v;
			fprintf(p->out, "%lld", sv);
		} else {
			fprintf(p->out, "%llu", v);
		}
		first = 0;
	}
	fputc('}', p->out);
}

static void put_csv(FILE *f, const char *s, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i] == '\n' ? ' ' : s[i], f);
	}
	fputc('"', f);
}

int ftk_print_other(struct ftk_printer *p, const struct tep_record *crec, int buf,
		       struct tep_event *ev)
{
	struct tep_record *rec = (struct tep_record *)crec;
	const struct pbuf *pb = buf >= 0 && buf < p->nr_bufs ? &p->bufs[buf] : NULL;
	const char *bname = pb ? pb->name : "";
	int pid = tep_data_pid(p->tep, rec);
	const char *comm = ftk_comms_get(p->ctab, p->tep, pid);
	const char *sys = ev ? ev->system : "unknown", *name = ev ? ev->name : "unknown";
	size_t info;
	int graph = 0;

	/* the event's text as the text output has it, compiled where it can be */
	p->info.len = 0;
	ftk_print_event_text(p, rec, ev, &p->info);
	info = p->info.len;
	while (info && p->info.b[info - 1] == '\n')
		info--;
	switch (p->format) {
	case FTK_PRINT_JSON:
		/* the keys of ftreport(1)'s SCHEMA, every one in every record */
		fputs("{\"file\":", p->out);
		ftk_json_str(p->out, p->file_name ? p->file_name : "",
			     p->file_name ? strlen(p->file_name) : 0);
		fprintf(p->out, ",\"ts\":%llu,\"cpu\":%d,\"pid\":%d,\"comm\":", rec->ts, rec->cpu,
			pid);
		ftk_json_str(p->out, comm, strlen(comm));
		fputs(",\"buffer\":", p->out);
		ftk_json_str(p->out, bname, strlen(bname));
		fprintf(p->out, ",\"system\":\"%s\",\"event\":\"%s\",\"missed\":%lld", sys, name,
			rec->missed_events);
		fputs(",\"fields\":", p->out);
		if (ev && ftk_print_record_ok(p, ev, rec))
			put_fields(p, ev, rec);
		else
			fputs("{}", p->out);
		fputs(",\"info\":", p->out);
		ftk_json_str(p->out, p->info.b, info);
		fputs("}\n", p->out);
		break;
	case FTK_PRINT_CSV:
		put_csv(p->out, p->file_name ? p->file_name : "",
			p->file_name ? strlen(p->file_name) : 0);
		fprintf(p->out, ",%llu,%d,%d,", rec->ts, rec->cpu, pid);
		put_csv(p->out, comm, strlen(comm));
		fputc(',', p->out);
		put_csv(p->out, bname, strlen(bname));
		fprintf(p->out, ",%s,%s,%lld,", sys, name, rec->missed_events);
		/* the fields as the JSON object -o json has, in one quoted column */
		if (!p->csv_fields &&
		    !(p->csv_fields = open_memstream(&p->csv_b, &p->csv_n)))
			return -ENOMEM;
		{
			FILE *out = p->out;

			rewind(p->csv_fields);
			p->out = p->csv_fields;
			if (ev && ftk_print_record_ok(p, ev, rec))
				put_fields(p, ev, rec);
			else
				fputs("{}", p->out);
			p->out = out;
		}
		if (fflush(p->csv_fields))
			return -EIO;
		put_csv(p->out, p->csv_b, ftell(p->csv_fields));
		fputc(',', p->out);
		put_csv(p->out, p->info.b, info);
		fputc('\n', p->out);
		break;
	case FTK_PRINT_CHROME:
		if (pid >= 0 && pid < (1 << 22)) {
			if (!p->chrome_seen)
				p->chrome_seen = calloc(1, (1 << 22) / 8);
			if (p->chrome_seen && !(p->chrome_seen[pid >> 3] & (1 << (pid & 7)))) {
				if (p->chrome_npids == p->chrome_apids) {
					int n = p->chrome_apids ? 2 * p->chrome_apids : 256;
					int *np = realloc(p->chrome_pids, n * sizeof(*np));

					if (np) {
						p->chrome_pids = np;
						p->chrome_apids = n;
					}
				}
				if (p->chrome_npids < p->chrome_apids) {
					p->chrome_pids[p->chrome_npids++] = pid;
					p->chrome_seen[pid >> 3] |= 1 << (pid & 7);
				}
			}
		}
		/*
		 * Instant events on the thread's track; function_graph entries
		 * and returns open and close slices. Chrome wants microseconds.
		 */
		{
			const char *ph = "\"ph\":\"i\",\"s\":\"t\"";
			unsigned long long func;
			char fname[64];
			const char *label = name;

			if (ev && !strcmp(sys, "ftrace") && ftk_print_record_ok(p, ev, rec) &&
			    (!strcmp(name, "funcgraph_entry") || !strcmp(name, "funcgraph_exit")) &&
			    !tep_get_field_val(NULL, ev, "func", rec, &func, 0)) {
				label = tep_find_function(p->tep, func);
				if (!label) {
					snprintf(fname, sizeof(fname), "0x%llx", func);
					label = fname;
				}
				ph = name[10] == 'e' && name[11] == 'n' ? "\"ph\":\"B\"" : "\"ph\":\"E\"";
				graph = 1;
			}
			fprintf(p->out, "%s{\"name\":", p->nrec || p->file_name ? ",\n" : "");
			ftk_json_str(p->out, label, strlen(label));
			fprintf(p->out, ",\"cat\":\"%s\",%s,\"ts\":", sys, ph);
		}
		if (!pb || pb->in_ns)
			fprintf(p->out, "%llu.%03llu", rec->ts / 1000, rec->ts % 1000);
		else
			fprintf(p->out, "%llu", rec->ts);
		fprintf(p->out, ",\"pid\":%d,\"tid\":%d", p->file_name ? p->part + 1 : pid, pid);
		/*
		 * A slice's B and E must carry the same args (speedscope keys a
		 * frame by name and args, and warns when an E's differ from its
		 * B's); the CPU, comm and text of an entry and its return can
		 * differ (a migration, an exec, the return's duration), so a
		 * function_graph slice has none: its track names the thread.
		 */
		if (graph) {
			fputc('}', p->out);
			break;
		}
		fprintf(p->out, ",\"args\":{\"cpu\":%d,\"comm\":", rec->cpu);
		ftk_json_str(p->out, comm, strlen(comm));
		fputs(",\"info\":", p->out);
		ftk_json_str(p->out, p->info.b, info);
		fputs("}}", p->out);
		break;
	default:
		break;
	}
	return ferror(p->out) ? -EIO : 0;
}

