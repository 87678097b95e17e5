/// A fake's table of what it handed out (pending logins, codes, tokens), keyed by the id or
/// the secret, that forgets its oldest entry once it holds more than `capacity`.
///
/// A flow hands out a handful; `flowcheck serve` hands out hundreds of thousands a day and, on
/// a clock only its control API moves, none of them ever expires. Forgetting the oldest keeps
/// its memory flat. A forgotten token or code is refused as an unknown one is, which is what a
/// provider that revoked it answers: RFC 6750 §3.1 (`invalid_token`) and RFC 6749 §5.2
/// (`invalid_grant`) both name a revoked grant beside an expired or invalid one, and a client
/// must cope with either. The secrets themselves stay recognisable to the redactor by their
/// shape (``MintedSecret``).
struct RetainedTable<Record> {
    /// Entries each table keeps. The table is the fake's, shared by every client: under a
    /// client that issues thousands of tokens a second, an older one still in use is forgotten
    /// within seconds (and the client must log in again, as after a revocation). A flow issues
    /// a handful.
    static var defaultCapacity: Int { 4096 }

    let capacity: Int
    /// Each record with the number of its insertion, so a key removed and added again is
    /// forgotten by its newer place in the order, never by its older one.
    private var records: [String: (insertion: Int, record: Record)] = [:]
    /// Keys in the order they were added, from `head` on; keys removed since are skipped.
    private var order: [(key: String, insertion: Int)] = []
    private var head = 0
    private var insertions = 0

    init(capacity: Int = Self.defaultCapacity) {
        self.capacity = max(capacity, 1)
    }

    var count: Int { records.count }
    /// Keys the table holds in its order, forgotten ones included (what its memory grows with).
    var keysHeld: Int { order.count }

    subscript(key: String) -> Record? {
        get { records[key]?.record }
        set {
            guard let newValue else {
                records[key] = nil
                compactIfSparse()
                return
            }
            if let existing = records[key] {
                records[key] = (existing.insertion, newValue)
                return
            }
            insertions += 1
            records[key] = (insertions, newValue)
            order.append((key, insertions))
            forgetOldest()
        }
    }

    /// Changes every record (a fake revoking everything it issued).
    mutating func updateAll(_ change: (inout Record) -> Void) {
        for index in records.indices { change(&records.values[index].record) }
    }

    /// Removes `key`'s record and returns it (nil if it had none).
    mutating func remove(_ key: String) -> Record? {
        let removed = self[key]
        self[key] = nil
        return removed
    }

    private mutating func forgetOldest() {
        while records.count > capacity, head < order.count {
            let (key, insertion) = order[head]
            if records[key]?.insertion == insertion { records[key] = nil }
            head += 1
        }
        compactIfSparse()
    }

    /// Drops the order's dead keys: the ones already forgotten, once they are half the array,
    /// and the ones the fake removed (a login completed, a state come back) once they
    /// outnumber the live ones.
    private mutating func compactIfSparse() {
        if head > 64, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        guard order.count - head > 2 * records.count + 64 else { return }
        order = order[head...].filter { records[$0.key]?.insertion == $0.insertion }
        head = 0
    }
}

/// The secrets a fake issued, newest last, keeping at least the latest `capacity` and fewer
/// than twice as many (the list a flow's judge and reports take; a flow issues far fewer).
struct RetainedList {
    let capacity: Int
    private(set) var items: [String] = []

    init(capacity: Int = RetainedTable<Never>.defaultCapacity) {
        self.capacity = max(capacity, 1)
    }

    mutating func append(_ item: String) {
        items.append(item)
        // Trimmed in halves, so an append costs O(1) on average.
        if items.count >= 2 * capacity { items.removeFirst(items.count - capacity) }
    }
}
