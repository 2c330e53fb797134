/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's filter attributes on scmpc: seccomp_attr_get() and
 * seccomp_attr_set().  Only the bad-arch action reaches the program; the
 * others are load flags or say how rules and errors are taken, and are
 * refused as libseccomp refuses them below the API level they need.
 */
#include <errno.h>

#include "api.h"
#include "compat.h"

/* -------------------------------------------------------- attributes */

API int seccomp_attr_get(const scmp_filter_ctx ctx, enum scmp_filter_attr attr, uint32_t *value)
{
	const struct compat_ctx *c = compat_ctx_valid(ctx);
	if (!c || !value)
		return -EINVAL;
	switch ((int)attr) {
	case SCMP_FLTATR_ACT_DEFAULT: *value = c->a.act_default; break;
	case SCMP_FLTATR_ACT_BADARCH: *value = c->a.act_badarch; break;
	case SCMP_FLTATR_CTL_NNP: *value = c->a.nnp; break;
	case SCMP_FLTATR_CTL_TSYNC: *value = c->a.tsync; break;
	case SCMP_FLTATR_API_TSKIP: *value = c->a.tskip; break;
	case SCMP_FLTATR_CTL_LOG: *value = c->a.log; break;
	case SCMP_FLTATR_CTL_SSB: *value = c->a.ssb; break;
	case SCMP_FLTATR_CTL_OPTIMIZE: *value = c->a.optimize; break;
	case SCMP_FLTATR_API_SYSRAWRC: *value = c->a.sysrawrc; break;
	case ATTR_WAITKILL: *value = c->a.waitkill; break;
	default: return -EINVAL;
	}
	return 0;
}

API int seccomp_attr_set(scmp_filter_ctx ctx, enum scmp_filter_attr attr, uint32_t value)
{
	struct compat_ctx *c = compat_ctx_valid(ctx);
	if (!c)
		return -EINVAL;
	unsigned l = compat_level();
	switch ((int)attr) {
	case SCMP_FLTATR_ACT_DEFAULT:
		return -EACCES;
	case SCMP_FLTATR_ACT_BADARCH:
		if (!compat_action_ok(c, value))
			return -EINVAL;
		/* the one attribute the program holds (the others are load
		 * flags, or how rules and errors are taken) */
		if (c->a.act_badarch != value)
			compat_changed(c);
		c->a.act_badarch = value;
		break;
	case SCMP_FLTATR_CTL_NNP:
		c->a.nnp = value;
		break;
	case SCMP_FLTATR_CTL_TSYNC:
		if (l < 2)
			return -EOPNOTSUPP;
		if (value && c->notify_used && l < 6)
			return -EINVAL;
		c->a.tsync = value;
		break;
	case SCMP_FLTATR_API_TSKIP:
		c->a.tskip = value;
		break;
	case SCMP_FLTATR_CTL_LOG:
		if (l < 3)
			return -EOPNOTSUPP;
		c->a.log = value;
		break;
	case SCMP_FLTATR_CTL_SSB:
		if (l < 4)
			return -EOPNOTSUPP;
		c->a.ssb = value;
		break;
	case SCMP_FLTATR_CTL_OPTIMIZE:
		/* both of libseccomp's layouts become scmpc's one */
		if (value != 1 && value != 2)
			return -EOPNOTSUPP;
		c->a.optimize = value;
		break;
	case SCMP_FLTATR_API_SYSRAWRC:
		c->a.sysrawrc = value;
		break;
	case ATTR_WAITKILL:
		/* libseccomp 2.6 takes it at any level: it is a request, passed
		 * to the kernel only with a listener (seccomp_load()). */
		c->a.waitkill = value;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}
