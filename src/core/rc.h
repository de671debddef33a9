/* rc.h - what a core function's int result means, and the size of the
 * buffer it explains itself in.
 *
 * A function that can fail for the user's input and for the system's
 * reasons returns one of these and writes one line into `why` (WHY_LEN
 * bytes; a longer message is cut there, never overflows). The binding
 * turns RC_INPUT into an input error (exit status 2, nothing touched) and
 * RC_FAIL into a run error.
 */
#ifndef IOMOON_RC_H
#define IOMOON_RC_H

enum iomoon_rc {
	RC_OK = 0,
	RC_FAIL = -1,    /* the system said no: why has the call and errno's words */
	RC_INPUT = -2,   /* the input asks for what cannot be: why names the field */
	RC_REFUSED = -3, /* the input is refused for the state of the target (why is the whole message) */
};

#define WHY_LEN 512

#endif
