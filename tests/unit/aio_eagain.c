/* aio_eagain.c - an LD_PRELOAD shim that makes libaio's io_submit short of
 * resources, as a loaded kernel can be: tests of the libaio engine.
 *
 *   AIO_EAGAIN=always  every call returns -EAGAIN
 *   AIO_EAGAIN=half    odd calls return -EAGAIN, even ones take one iocb
 *
 * Anything else (or unset) passes every call through. */
#include <dlfcn.h>
#include <errno.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>

int io_submit(io_context_t ctx, long nr, struct iocb *ios[])
{
	static int (*real)(io_context_t, long, struct iocb **);
	static unsigned long calls;
	const char *mode = getenv("AIO_EAGAIN");

	if (!real)
		real = (int (*)(io_context_t, long, struct iocb **))dlsym(RTLD_NEXT, "io_submit");
	if (mode && !strcmp(mode, "always"))
		return -EAGAIN;
	if (mode && !strcmp(mode, "half")) {
		if (calls++ % 2 == 0)
			return -EAGAIN;
		nr = 1;
	}
	return real(ctx, nr, ios);
}
