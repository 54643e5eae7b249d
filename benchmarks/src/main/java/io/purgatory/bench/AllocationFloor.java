package io.purgatory.bench;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * The capacity ladder's yardstick, the allocation floor: the workload's inserts with no purgatory,
 * allocating per insert what ours allocates (its body, as every implementation's, plus a
 * {@code byte[]} that makes up the difference), each insert kept reachable until its deadline, as a
 * pending operation is. A step that fails here failed on the operations' own allocation and
 * retention (a young collection that copies every pending one), not on a purgatory's code.
 *
 * <p>Its "timer" is the least one can be: a ring of 1 ms slots, one array each, that one thread
 * empties once its millisecond has passed, running each body's expiry. Slots are guarded by their
 * own monitor (the inserter and the driver never want the same slot: delays are at least
 * 100 ms); a slot's array grows and is then reused, so after the first second the floor
 * allocates nothing of its own per insert.
 */
final class AllocationFloor implements ExpirationLoadWorkload.Target {

    /** The slots: a power of two above the longest delay (1100 ms) plus the lag a step tolerates. */
    private static final int SLOTS = 4096;

    private final Slot[] slots = new Slot[SLOTS];
    private final int fillerBytes;
    private final Thread driver;
    private volatile boolean closed;

    /** A floor whose every insert also allocates a {@code byte[]} of {@code fillerBytes} (none if below 16). */
    AllocationFloor(String name, int fillerBytes) {
        this.fillerBytes = fillerBytes;
        for (int i = 0; i < SLOTS; i++) {
            slots[i] = new Slot();
        }
        this.driver = Threads.start(name + "-floor-driver", this::drive);
    }

    /** The bytes a {@code byte[]} of {@code length} takes on the heap (16-byte header, 8-byte alignment). */
    static int arrayBytes(int length) {
        return 16 + ((length + 7) & ~7);
    }

    /** The length of the {@code byte[]} that takes {@code bytes} on the heap, or -1 if none is that small. */
    static int fillerLength(int bytes) {
        return bytes < 16 ? -1 : bytes - 16;
    }

    @Override
    public void insert(LatenessTracker tracker, int i) {
        ExpirationWorkload.ExpiryBody body = new ExpirationWorkload.ExpiryBody(tracker, i);
        int length = fillerLength(fillerBytes);
        byte[] filler = length < 0 ? null : new byte[length];
        long dueMs = Math.floorDiv(tracker.deadline(i), 1_000_000L);
        Slot slot = slots[(int) (dueMs & (SLOTS - 1))];
        synchronized (slot) {
            slot.add(body, filler);
        }
    }

    @Override
    public String driverThread() {
        return "-floor-driver";
    }

    @Override
    public void close() {
        closed = true;
        Threads.joinAll(driver);
    }

    /** Each millisecond: the slots of every millisecond that has passed since the last, their bodies expired. */
    private void drive() {
        long doneMs = Math.floorDiv(System.nanoTime(), 1_000_000L) - 1; // slots up to here are empty
        while (!closed) {
            long nowMs = Math.floorDiv(System.nanoTime(), 1_000_000L);
            while (doneMs < nowMs - 1) { // a slot's millisecond has passed once the clock is in the next one
                doneMs++;
                Slot slot = slots[(int) (doneMs & (SLOTS - 1))];
                synchronized (slot) {
                    slot.expireAll();
                }
            }
            LockSupport.parkNanos((nowMs + 1) * 1_000_000L - System.nanoTime());
        }
    }

    /** One millisecond's inserts: body, filler, body, filler... Guarded by its monitor. */
    private static final class Slot {
        private static final Object[] NONE = {};

        private Object[] entries = NONE;
        private int size;

        void add(ExpirationWorkload.ExpiryBody body, byte[] filler) {
            if (size + 2 > entries.length) {
                entries = Arrays.copyOf(entries, Math.max(16, entries.length * 2));
            }
            entries[size++] = body;
            entries[size++] = filler;
        }

        void expireAll() {
            for (int i = 0; i < size; i += 2) {
                OpBody body = (OpBody) entries[i];
                body.completed();
                body.expired();
                entries[i] = null;
                entries[i + 1] = null;
            }
            size = 0;
        }
    }
}
