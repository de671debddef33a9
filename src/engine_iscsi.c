/* engine_iscsi.c - an iSCSI LUN through libiscsi (netblk.h). */
#include "engine.h"
#include "netblk.h"
#include "rc.h"

#include <stdio.h>

static const char *const iscsi_schemes[] = { "iscsi://", NULL };

static int iscsi_probe(char *why, size_t why_len)
{
	snprintf(why, why_len, "not built yet");
	return -1;
}

static int iscsi_inspect(const char *url, struct net_info *ni, char *why, size_t why_len)
{
	(void)url;
	(void)ni;
	snprintf(why, why_len, "engine iscsi is not built yet");
	return RC_FAIL;
}

static const struct net_ops iscsi_net = { .schemes = iscsi_schemes, .inspect = iscsi_inspect };

const struct engine_ops engine_iscsi = {
	.name = "iscsi",
	.probe = iscsi_probe,
	.net = &iscsi_net,
};
