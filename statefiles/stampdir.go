package statefiles

// numberedStamps stamps the numbered files of the folder (the records' segments,
// the queue's shards) as a check of an index wants them. The folder is listed
// (number reads a file's number from its name) only when its own stamp is not
// rec, the one recorded with the numbers recorded; else those numbers stand. A
// recorded file found gone (removed since the folder's stamp was read) lists the
// folder after all. Each file is stamped by base(n), its name: with the tail's
// hash where times are whole seconds (tail), or without (statOnly). folder is the
// stamp that stands for the listing: rec when the folder was not listed, its own
// when it was and had settled at the time at, zero otherwise.
func (d *stampDir) numberedStamps(rec stamp, recorded []int, number func(string) (int, bool), base func(int) string, tail bool, at int64) (nums []int, stamps []stamp, folder stamp, err error) {
	own, err := d.own()
	if err != nil {
		return nil, nil, stamp{}, err
	}
	listed := rec.Ino == 0 || !sameFolder(own, rec)
	if listed {
		ents, err := d.entries()
		if err != nil {
			return nil, nil, stamp{}, err
		}
		for _, f := range numbered(ents, number) {
			nums = append(nums, f.n)
		}
		if own.fine() && own.settledAt(at) {
			folder = own
		}
	} else {
		nums, folder = recorded, rec
	}
	stamps = make([]stamp, len(nums))
	for i, n := range nums {
		var s stamp
		if tail {
			s, err = d.stat(base(n))
		} else {
			s, err = d.statOnly(base(n))
		}
		if err != nil {
			return nil, nil, stamp{}, err
		}
		if s.Ino == 0 && !listed {
			return d.numberedStamps(stamp{}, nil, number, base, tail, at)
		}
		stamps[i] = s
	}
	return nums, stamps, folder, nil
}

// sameFolder reports whether the folder's stamp cur is the one recorded.
func sameFolder(cur, rec stamp) bool {
	return cur.Ino == rec.Ino && cur.Size == rec.Size && cur.MTime == rec.MTime && cur.CTime == rec.CTime
}
