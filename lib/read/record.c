// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record: fields of a record read within its bounds (stream.h).
 *
 * libtraceevent's tep_read_number_field() and tep_get_field_raw() trust
 * the offsets of the format and of a __data_loc word: a record cut short
 * by a lost sub-buffer or a format that does not match would be read past
 * its end. These check every offset against rec->size first.
 */
#include <string.h>

#include <traceevent/event-parse.h>

#include <ftkit/stream.h>

/**
 * ftk_record_num() - a number field of a record
 * @rec: the record
 * @f: the field, of its event's format
 *
 * Return: the value, sign-extended for a signed field of 1, 2 or 4 bytes;
 * 0 when the field lies outside the record.
 */
FTK_API long long ftk_record_num(const struct tep_record *rec, const struct tep_format_field *f)
{
	unsigned long long v;

	if (!f || (unsigned int)f->offset + f->size > (unsigned int)rec->size ||
	    tep_read_number_field((struct tep_format_field *)f, rec->data, &v))
		return 0;
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		switch (f->size) {
		case 1: return (signed char)v;
		case 2: return (short)v;
		case 4: return (int)v;
		}
	}
	return (long long)v;
}

/**
 * ftk_record_str() - a string field of a record
 * @rec: the record
 * @f: the field: a fixed char array or a __data_loc (relative ones too)
 * @len: receives the length, up to the first NUL within the field
 *
 * Return: the string in the record (not NUL-terminated when it fills the
 * field: use *@len), valid as long as the record; "" when out of the record.
 */
FTK_API const char *ftk_record_str(const struct tep_record *rec, const struct tep_format_field *f,
				   int *len)
{
	const char *data = rec->data;
	unsigned int off, n, loc;

	*len = 0;
	if (!f || (unsigned int)f->offset + f->size > (unsigned int)rec->size)
		return "";
	off = f->offset;
	n = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if ((unsigned int)f->size < sizeof(loc))
			return "";
		memcpy(&loc, data + f->offset, sizeof(loc));
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
		if (off + n > (unsigned int)rec->size)
			return "";
	}
	*len = strnlen(data + off, n);
	return data + off;
}

/** ftk_record_pid() - common_pid of a record; -1 when it is too short to hold one */
FTK_API int ftk_record_pid(const struct tep_record *rec)
{
	int pid;

	if (rec->size < 8)
		return -1;
	memcpy(&pid, (const char *)rec->data + 4, sizeof(pid));
	return pid;
}
