// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause

// gvisor-bpf compiles the policies bench_gvisor exports (DIR/*.rules) with
// gVisor's seccomp package, as runsc builds its own filter: one RuleSet per
// action, rule optimizations and the BPF optimizer on, no hot syscalls
// (scmpc and libseccomp are measured without a workload too).  Each
// program goes to DIR/NAME.gvisor.bpf as 8-byte sock_filter records in
// this machine's byte order, for bench_gvisor to measure with the same
// code as the other compilers.
//
// gVisor fixes the architecture when it is built (LINUX_AUDIT_ARCH), so a
// binary serves one ABI: files for another ABI are left for the binary
// built for it, never retargeted here.
//
//	gvisor-bpf DIR
package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gvisor.dev/gvisor/pkg/seccomp"
)

// One rule of the export: the call, the action, the conditions (all must
// hold).  Rules of one call come most restrictive first, which is what
// the policy means when several hold; gVisor takes the first that holds.
type rule struct {
	nr     uintptr
	action seccomp.Action
	conds  []seccomp.PerArg
}

type policy struct {
	audit   uint32
	def     seccomp.Action
	badArch seccomp.Action
	rules   []rule
}

// action turns a SECCOMP_RET_* value into gVisor's Action.  gVisor has no
// LOG action and puts data on ERRNO and TRACE only: the others are refused
// rather than approximated.
func action(s string) (seccomp.Action, error) {
	v, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return "", err
	}
	data := uint16(v)
	switch uint32(v) & 0xffff0000 {
	case 0x7fff0000:
		if data == 0 {
			return seccomp.Allow, nil
		}
	case 0x00050000:
		return seccomp.ReturnError.Code(data), nil
	case 0x00030000:
		// gVisor's BPFAction.WithReturnCode takes ERRNO and TRACE only.
		if data == 0 {
			return seccomp.Trap, nil
		}
	case 0x7ff00000:
		return seccomp.Trace.Code(data), nil
	case 0x7fc00000:
		if data == 0 {
			return seccomp.UserNotify, nil
		}
	case 0x80000000:
		if data == 0 {
			return seccomp.KillProcess, nil
		}
	case 0x00000000:
		if data == 0 {
			return seccomp.KillThread, nil
		}
	}
	return "", fmt.Errorf("action %#x has no gVisor counterpart", v)
}

// cond reads ARG:OP:VALUE[:VALUE2], 64-bit comparisons of one argument.
func cond(s string) (seccomp.PerArg, error) {
	var pa seccomp.PerArg
	f := strings.Split(s, ":")
	if len(f) < 3 {
		return pa, fmt.Errorf("condition %q: want ARG:OP:VALUE", s)
	}
	arg, err := strconv.Atoi(f[0])
	if err != nil || arg < 0 || arg > 5 {
		return pa, fmt.Errorf("condition %q: bad argument", s)
	}
	val, err := strconv.ParseUint(f[2], 0, 64)
	if err != nil {
		return pa, fmt.Errorf("condition %q: %v", s, err)
	}
	v := uintptr(val)
	var m seccomp.ValueMatcher
	switch f[1] {
	case "eq":
		m = seccomp.EqualTo(v)
	case "ne":
		m = seccomp.NotEqual(v)
	case "lt":
		m = seccomp.LessThan(v)
	case "le":
		m = seccomp.LessThanOrEqual(v)
	case "gt":
		m = seccomp.GreaterThan(v)
	case "ge":
		m = seccomp.GreaterThanOrEqual(v)
	case "meq":
		if len(f) != 4 {
			return pa, fmt.Errorf("condition %q: meq wants a mask and a datum", s)
		}
		datum, err := strconv.ParseUint(f[3], 0, 64)
		if err != nil {
			return pa, fmt.Errorf("condition %q: %v", s, err)
		}
		m = seccomp.MaskedEqual(v, uintptr(datum))
	default:
		return pa, fmt.Errorf("condition %q: unknown operator", s)
	}
	pa[arg] = m
	return pa, nil
}

func readPolicy(path string) (*policy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &policy{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for line := 1; sc.Scan(); line++ {
		w := strings.Fields(sc.Text())
		if len(w) == 0 || strings.HasPrefix(w[0], "#") {
			continue
		}
		bad := func(err error) (*policy, error) {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		switch {
		case w[0] == "arch" && len(w) == 2:
			a, err := strconv.ParseUint(w[1], 0, 32)
			if err != nil {
				return bad(err)
			}
			p.audit = uint32(a)
		case w[0] == "default" && len(w) == 2:
			if p.def, err = action(w[1]); err != nil {
				return bad(err)
			}
		case w[0] == "badarch" && len(w) == 2:
			if p.badArch, err = action(w[1]); err != nil {
				return bad(err)
			}
		case w[0] == "rule" && len(w) >= 3:
			nr, err := strconv.ParseUint(w[1], 0, 32)
			if err != nil {
				return bad(err)
			}
			r := rule{nr: uintptr(nr)}
			if r.action, err = action(w[2]); err != nil {
				return bad(err)
			}
			for _, c := range w[3:] {
				pa, err := cond(c)
				if err != nil {
					return bad(err)
				}
				r.conds = append(r.conds, pa)
			}
			p.rules = append(p.rules, r)
		default:
			return bad(fmt.Errorf("cannot read %q", sc.Text()))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if p.def == "" || p.badArch == "" || p.audit == 0 {
		return nil, fmt.Errorf("%s: arch, default and badarch are required", path)
	}
	return p, nil
}

// syscallRule is one rule's conditions as gVisor states them: MatchAll for
// none, a PerArg when each argument is named once, else their And.
func syscallRule(conds []seccomp.PerArg) seccomp.SyscallRule {
	if len(conds) == 0 {
		return seccomp.MatchAll{}
	}
	var merged seccomp.PerArg
	for _, c := range conds {
		for i, m := range c {
			if m == nil {
				continue
			}
			if merged[i] != nil {
				and := make(seccomp.And, len(conds))
				for j, c := range conds {
					and[j] = c
				}
				return and
			}
			merged[i] = m
		}
	}
	return merged
}

// ruleSets lays the rules out so that gVisor's first-match order is the
// export's order for every call: a call's k-th run of rules with one action
// goes to the k-th group of RuleSets, one RuleSet per action in a group.
// (gVisor joins a call's consecutive rules of one action with Or.)
func ruleSets(p *policy) []seccomp.RuleSet {
	type run struct {
		action seccomp.Action
		rules  []seccomp.SyscallRule
	}
	runs := map[uintptr][]run{}
	for _, r := range p.rules {
		rs := runs[r.nr]
		if n := len(rs); n == 0 || rs[n-1].action != r.action {
			rs = append(rs, run{action: r.action})
		}
		rs[len(rs)-1].rules = append(rs[len(rs)-1].rules, syscallRule(r.conds))
		runs[r.nr] = rs
	}
	depth := 0
	for _, rs := range runs {
		if len(rs) > depth {
			depth = len(rs)
		}
	}
	var sets []seccomp.RuleSet
	for k := 0; k < depth; k++ {
		byAction := map[seccomp.Action]seccomp.SyscallRules{}
		var order []seccomp.Action
		for nr, rs := range runs {
			if k >= len(rs) {
				continue
			}
			sr, ok := byAction[rs[k].action]
			if !ok {
				sr = seccomp.NewSyscallRules()
				byAction[rs[k].action] = sr
				order = append(order, rs[k].action)
			}
			var sys seccomp.SyscallRule = seccomp.Or(rs[k].rules)
			if len(rs[k].rules) == 1 {
				sys = rs[k].rules[0]
			}
			sr.Set(nr, sys)
		}
		// Map order is random; sorted, a run builds the same program.
		sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
		for _, a := range order {
			sets = append(sets, seccomp.RuleSet{Rules: byAction[a], Action: a})
		}
	}
	return sets
}

func compile(in, out string) (before, after int, err error) {
	p, err := readPolicy(in)
	if err != nil {
		return 0, 0, err
	}
	if p.audit != seccomp.LINUX_AUDIT_ARCH {
		return 0, 0, errSkip
	}
	prog := &seccomp.Program{
		RuleSets: ruleSets(p),
		Options: seccomp.ProgramOptions{
			DefaultAction: p.def,
			BadArchAction: p.badArch,
		},
	}
	insns, stats, err := prog.Build()
	if err != nil {
		return 0, 0, err
	}
	buf := make([]byte, 0, 8*len(insns))
	for _, ins := range insns {
		buf = binary.NativeEndian.AppendUint16(buf, ins.OpCode)
		buf = append(buf, ins.JumpIfTrue, ins.JumpIfFalse)
		buf = binary.NativeEndian.AppendUint32(buf, ins.K)
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, buf, 0o644); err != nil {
		return 0, 0, err
	}
	return stats.SizeBeforeOptimizations, stats.SizeAfterOptimizations, os.Rename(tmp, out)
}

var errSkip = fmt.Errorf("another ABI")

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gvisor-bpf DIR")
		os.Exit(2)
	}
	files, err := filepath.Glob(filepath.Join(os.Args[1], "*.rules"))
	if err != nil || len(files) == 0 {
		fmt.Fprintf(os.Stderr, "gvisor-bpf: no %s/*.rules\n", os.Args[1])
		os.Exit(1)
	}
	sort.Strings(files)
	failed := 0
	for _, in := range files {
		out := strings.TrimSuffix(in, ".rules") + ".gvisor.bpf"
		before, after, err := compile(in, out)
		switch {
		case err == errSkip:
			continue
		case err != nil:
			// Left without a program; bench_gvisor says so in its row.
			fmt.Fprintf(os.Stderr, "gvisor-bpf: %s: %v\n", filepath.Base(in), err)
			os.WriteFile(strings.TrimSuffix(in, ".rules")+".gvisor.err", []byte(err.Error()+"\n"), 0o644)
			failed++
		default:
			fmt.Printf("%-48s %5d -> %5d instructions\n", filepath.Base(in), before, after)
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}
