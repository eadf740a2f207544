/*
 * Reads whole files from the volume this application was loaded from.
 * Paths come from the (untrusted) config: they are length-limited by the
 * parser and converted character by character here.
 */
#include "efiboot.h"

#define EB_FILE_MAX (1ull << 32) /* no kit or kernel is anywhere near this */

int eb_open_root(struct eb_state *s)
{
	EFI_GUID lip = LOADED_IMAGE_PROTOCOL;
	EFI_GUID sfs = SIMPLE_FILE_SYSTEM_PROTOCOL;
	EFI_LOADED_IMAGE *li = LK_NULL;
	EFI_FILE_IO_INTERFACE *fs = LK_NULL;
	EFI_BOOT_SERVICES *bs = s->st->BootServices;
	EFI_STATUS st;

	st = bs->HandleProtocol(s->image, &lip, (void **)&li);
	if (st == EFI_SUCCESS)
		st = bs->HandleProtocol(li->DeviceHandle, &sfs, (void **)&fs);
	if (st == EFI_SUCCESS)
		st = fs->OpenVolume(fs, &s->root);
	if (st != EFI_SUCCESS) {
		eb_print(s, "cannot open the boot volume: %s",
			 eb_status_str(st));
		s->root = LK_NULL;
		return -1;
	}
	return 0;
}

static void eb_path16(const char *path, CHAR16 *w, UINTN cap)
{
	UINTN i;

	for (i = 0; path[i] && i + 1 < cap; i++)
		w[i] = path[i] == '/' ? '\\' : (CHAR16)(lk_u8)path[i];
	w[i] = 0;
}

static EFI_STATUS eb_file_size(EFI_FILE_HANDLE f, lk_u64 *size)
{
	EFI_STATUS st = f->SetPosition(f, 0xffffffffffffffffull);
	UINT64 pos = 0;

	if (st == EFI_SUCCESS)
		st = f->GetPosition(f, &pos);
	*size = pos;
	if (st == EFI_SUCCESS)
		st = f->SetPosition(f, 0);
	return st;
}

static EFI_STATUS eb_read_all(EFI_FILE_HANDLE f, lk_u8 *buf, lk_u64 size)
{
	lk_u64 done = 0;

	while (done < size) {
		UINTN n = size - done > (1u << 24) ? (1u << 24) : size - done;
		EFI_STATUS st = f->Read(f, &n, buf + done);
		if (st != EFI_SUCCESS)
			return st;
		if (n == 0)
			return EFI_END_OF_FILE; /* file shrank under us */
		done += n;
	}
	return EFI_SUCCESS;
}

static EFI_STATUS eb_read_open(struct eb_state *s, EFI_FILE_HANDLE f,
			       int secret, lk_u8 **buf, lk_u64 *size)
{
	EFI_STATUS st = eb_file_size(f, size);

	if (st == EFI_SUCCESS && *size >= EB_FILE_MAX)
		st = EFI_BAD_BUFFER_SIZE;
	if (st == EFI_SUCCESS) {
		*buf = eb_pages(s, *size ? *size : 1, 0, secret);
		if (!*buf)
			st = EFI_OUT_OF_RESOURCES;
	}
	if (st == EFI_SUCCESS)
		st = eb_read_all(f, *buf, *size);
	return st;
}

/*
 * On success *data is in fresh pages (recorded, freed with the others);
 * a zero-length file gives one zeroed page and *size 0. On failure one
 * error line in the FAT reader's words ("PATH: file not found").
 */
int eb_read_file(struct lk_boot *b, const char *path, int secret,
		 void **data, lk_u64 *size)
{
	struct eb_state *s = eb_of(b);
	CHAR16 w[LK_CFG_PATH_MAX];
	EFI_FILE_HANDLE f = LK_NULL;
	EFI_STATUS st = EFI_NOT_FOUND;
	lk_u8 *buf = LK_NULL;

	eb_path16(path, w, LK_CFG_PATH_MAX);
	if (s->root)
		st = s->root->Open(s->root, &f, w, EFI_FILE_MODE_READ, 0);
	if (st == EFI_SUCCESS)
		st = eb_read_open(s, f, secret, &buf, size);
	if (f)
		f->Close(f);
	if (st == EFI_NOT_FOUND) {
		lk_log(&b->host, LK_LOG_ERROR, "%s: file not found", path);
		return -1;
	}
	if (st != EFI_SUCCESS) {
		if (buf)
			eb_pages_free(s, buf);
		lk_log(&b->host, LK_LOG_ERROR, "%s: cannot read: %s", path,
		       eb_status_str(st));
		return -1;
	}
	*data = buf;
	return 0;
}
