package io.purgatory.bench;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** The feed-rate workload's stamps: keys back to events, each stage over the events that have both ends. */
class FeedStampsTest {

    @Test
    void index_keysOfThisStepOnly_giveTheirEventAndAllElseMinusOne() {
        FeedStamps s = new FeedStamps(7, 100);

        assertEquals(42, s.index(s.key(42).getBytes(UTF_8)));
        assertEquals(-1, s.index("8.42".getBytes(UTF_8)), "another step's");
        assertEquals(-1, s.index("7.100".getBytes(UTF_8)), "past the step's events");
        assertEquals(-1, s.index("warm-up".getBytes(UTF_8)));
        assertEquals(-1, s.index("7.".getBytes(UTF_8)));
        assertEquals(-1, s.index(".4".getBytes(UTF_8)));
        assertEquals(-1, s.index("7.4.2".getBytes(UTF_8)));
        assertEquals(-1, s.index("7.99999999999999".getBytes(UTF_8)));
        assertEquals(-1, s.index(null));
    }

    @Test
    void polledAndHanded_onTheWaitersInstance_stampThatInstanceAndTheAppendTime() {
        FeedStamps s = new FeedStamps(1, 4);
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("t", 0, 0, 1_000L,
                TimestampType.LOG_APPEND_TIME, 0, 0, s.key(3).getBytes(UTF_8), new byte[0], new RecordHeaders(),
                Optional.empty());

        s.polled(0, record, 55); // event 3 waits on instance 1: instance 0 only reads it
        s.polled(1, record, 66);
        String key = s.handed(1, record);

        assertEquals("1.3", key);
        assertEquals(55, s.polledAt[0][3]);
        assertEquals(66, s.atWaiter(s.polledAt)[3]);
        assertEquals(1_000L, s.appendMs[3]);
        assertEquals(1_000_000_000L - s.wallMinusNanos, s.appendedAt(3));
    }

    @Test
    void stage_eventsMissingAnEnd_areLeftOutAndTheRestSorted() {
        long[] from = {10, 20, 0, 40};
        long[] to = {15, 21, 30, 0};

        assertArrayEquals(new long[] {1, 5}, FeedStamps.stage(from, to));
    }
}
