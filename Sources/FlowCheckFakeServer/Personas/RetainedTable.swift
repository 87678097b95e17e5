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
    /// Entries each table keeps: far more than any flow or any client of `serve` holds at once.
    static var defaultCapacity: Int { 4096 }

    let capacity: Int
    private var records: [String: Record] = [:]
    /// Keys in the order they were added, from `head` on; keys removed since are skipped.
    private var order: [String] = []
    private var head = 0

    init(capacity: Int = Self.defaultCapacity) {
        self.capacity = max(capacity, 1)
    }

    var count: Int { records.count }
    /// Keys the table holds in its order, forgotten ones included (what its memory grows with).
    var keysHeld: Int { order.count }
    var keys: Dictionary<String, Record>.Keys { records.keys }

    subscript(key: String) -> Record? {
        get { records[key] }
        set {
            guard let newValue else {
                records[key] = nil
                compactIfSparse()
                return
            }
            if records.updateValue(newValue, forKey: key) == nil {
                order.append(key)
                forgetOldest()
            }
        }
    }

    /// Changes every record (a fake revoking everything it issued).
    mutating func updateAll(_ change: (inout Record) -> Void) {
        for key in Array(records.keys) { change(&records[key]!) }
    }

    private mutating func forgetOldest() {
        while records.count > capacity, head < order.count {
            records[order[head]] = nil
            head += 1
        }
        compactIfSparse()
    }

    /// Drops the order's dead keys once they outnumber the live ones: entries removed by the
    /// fake (a login completed, a state come back) leave their key behind.
    private mutating func compactIfSparse() {
        // The keys already forgotten, once they are half the array.
        if head > 64, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        guard order.count - head > 2 * records.count + 64 else { return }
        var seen = Set<String>()
        order = order[head...].filter { records[$0] != nil && seen.insert($0).inserted }
        head = 0
    }
}

/// The secrets a fake issued, newest last, keeping the latest `capacity` (the list a flow's
/// judge and reports take; a flow issues far fewer).
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
