/* test_redact.c - passwords out of text (redact.h): exact answers. */
#include <string.h>

#include "core/redact.h"
#include "tap.h"

static void is(const char *in, const char *want)
{
	char buf[512];

	redact_copy(in, buf, sizeof(buf));
	ok(!strcmp(buf, want), "'%s' -> '%s' (got '%s')", in, want, buf);
}

int main(void)
{
	char small[24];

	/* a URL's password, libiscsi's form and a URI's, any scheme in any case */
	is("iscsi://alice%secret@h/iqn.x/1", "iscsi://alice@h/iqn.x/1");
	is("ISCSI://alice%secret@h:3260/iqn.x/1", "ISCSI://alice@h:3260/iqn.x/1");
	is("nbd://u:pw@h/x", "nbd://u@h/x");
	is("iScSi://%onlypw@h/i/1", "iScSi://@h/i/1");
	is("x+y.z-1://u:p@h", "x+y.z-1://u@h");
	/* fio's escaped colons */
	is("filename=iscsi\\://u%s3c@h\\:1/iqn\\:x/1", "filename=iscsi\\://u@h\\:1/iqn\\:x/1");
	/* in a message: every URL; a port is not a password; a later '@' is not the URL's */
	is("phase.target.path: iscsi://a%b1@h/i/1: cannot connect (nbd://c:d2@h/x)",
	   "phase.target.path: iscsi://a@h/i/1: cannot connect (nbd://c@h/x)");
	is("iscsi://h:3260/iqn.x:lun/1: login failed for bob@corp", "iscsi://h:3260/iqn.x:lun/1: login failed for bob@corp");
	is("iscsi://h:1/x: not an iSCSI URL (iscsi://[user[%password]@]host[:port]/IQN/LUN)",
	   "iscsi://h:1/x: not an iSCSI URL (iscsi://[user[%password]@]host[:port]/IQN/LUN)");
	is("iscsi://[::1]:3260/iqn/1", "iscsi://[::1]:3260/iqn/1");
	is("plain text, a@b, x:y", "plain text, a@b, x:y");
	is("no scheme ://u:p@h", "no scheme ://u:p@h");
	/* a password may hold '/', '%', ':' (libiscsi splits at the first '@') */
	is("iscsi://u%a/b:c%d@h/i/1", "iscsi://u@h/i/1");
	/* a query's password value */
	is("iscsi://h/i/1?target_user=bob&target_password=Hush-77", "iscsi://h/i/1?target_user=bob&target_password=");
	is("x?password=p1&y=2#f", "x?password=&y=2#f");
	is("iscsi://h/i/1?target_password=pw: refused", "iscsi://h/i/1?target_password=: refused");
	is("the URL holds target_password=: give it", "the URL holds target_password=: give it");
	/* a text cut short: what is left of a password is cut too */
	redact_copy("iscsi://alice%longsecretpassword@h/i/1", small, sizeof(small));
	ok(!strcmp(small, "iscsi://alice"), "cut short: 'iscsi://alice%longsecr...' -> 'iscsi://alice' (got '%s')", small);
	/* a password given in a URL (an argument, a target) is left out wherever it appears */
	redact_keep("--target=ISCSI://alice%pa ss/w0rd@h/i/1"); /* read to the first '@', as libiscsi reads it */
	is("login as alice with pa ss/w0rd failed", "login as alice with  failed");
	is("iscsi://alice%pa ss/w0rd@h/i/1", "iscsi://alice@h/i/1");
	redact_keep("iscsi://u%abc@h/i/1"); /* under 8 bytes: only where it stands as a password */
	is("abc", "abc");
	/* a short password that is a word: the text's own words are left be,
	 * the password is cut where it stands as one (spaces and all) */
	redact_keep("iscsi://alice%Read@h/i/1");
	is("4K; 100% Read; 100% random; QD 1", "4K; 100% Read; 100% random; QD 1");
	is("\"Read IOps\",\"Read MBps (Binary)\",\"Reads\"", "\"Read IOps\",\"Read MBps (Binary)\",\"Reads\"");
	is("iscsi://alice%Read@h/i/1: Read failed", "iscsi://alice@h/i/1: Read failed");
	is("iscsi://h/i/1?target_password=Read", "iscsi://h/i/1?target_password=");
	redact_keep("nbd://bob:a b@h/x"); /* short, with a space: the URL rule alone stops at the space */
	is("cannot connect to nbd://bob:a b@h/x (a b)", "cannot connect to nbd://bob@h/x (a b)");
	redact_keep("iscsi://h/i/1?target_password=Quiet-55&x=1");
	is("it was Quiet-55", "it was ");
	return tap_done();
}
