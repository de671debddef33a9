/* deny_syscalls.c - run a command with some system calls refused (ENOSYS),
 * as a kernel without them would: tests of engine fallback and refusal.
 *
 *   deny_syscalls io_uring_setup,io_setup -- COMMAND [ARGS...]
 *
 * A seccomp filter, so nothing outside the command is affected. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static long syscall_nr(const char *name)
{
	if (!strcmp(name, "io_uring_setup"))
		return SYS_io_uring_setup;
	if (!strcmp(name, "io_setup"))
		return SYS_io_setup;
	return -1;
}

int main(int argc, char **argv)
{
	struct sock_filter f[32];
	unsigned n = 0;
	char names[256], *tok, *save;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: deny_syscalls NAME[,NAME...] -- COMMAND [ARGS...]\n");
		return 2;
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	snprintf(names, sizeof(names), "%s", argv[1]);
	for (tok = strtok_r(names, ",", &save); tok && n < 28; tok = strtok_r(NULL, ",", &save)) {
		long nr = syscall_nr(tok);

		if (nr < 0) {
			fprintf(stderr, "deny_syscalls: unknown system call '%s'\n", tok);
			return 2;
		}
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	{
		struct sock_fprog prog = { .len = (unsigned short)n, .filter = f };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
			perror("deny_syscalls: seccomp");
			return 2;
		}
	}
	execvp(argv[3], argv + 3);
	perror("deny_syscalls: exec");
	return 127;
}
