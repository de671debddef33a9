/* stop.h - the flag that stops a running phase.
 *
 * Set from a signal handler (main.c) or when a cluster's rank stops; read
 * by the phase's loops and by what may wait long before or during one (a
 * target being filled, a network engine connecting or retrying).
 */
#ifndef IOMOON_STOP_H
#define IOMOON_STOP_H

#include <signal.h>

/* Set from a signal handler: stop the running phase (and mark it). */
extern volatile sig_atomic_t phase_interrupt;

#endif
