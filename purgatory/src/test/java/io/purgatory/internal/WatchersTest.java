package io.purgatory.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.internal.Operation.Owner;
import io.purgatory.internal.Watchers.WatchNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * One key's watch lists (Watchers K1, K2) against a model, under every order of unlinking (watch
 * order, reverse, random, the oldest surviving): the operations watching the key alone in watch
 * order, then the nodes of those on several keys in theirs, the invariants checked after every step.
 */
class WatchersTest {

    private enum Order { WATCH, REVERSE, RANDOM, OLDEST_SURVIVE }

    /** The owner every operation of these lists names (OperationState O6), as its engine would be. */
    private static final Owner OWNER = new Owner() {
        @Override
        public String name() {
            return "watchers";
        }

        @Override
        public void settled(Operation op, int outcome, long state) {
        }

        @Override
        public void failed(Operation op, int callback, Throwable error) {
        }

        @Override
        public void expiryBegins() {
        }

        @Override
        public void expiryEnds() {
        }
    };

    /** A pending operation that never completes by itself. */
    private static final class Op extends Operation {
        Op() {
            super(60_000);
            owner = OWNER;
        }

        @Override
        protected boolean tryComplete() {
            return false;
        }

        @Override
        protected void onComplete() {
        }

        @Override
        protected void onExpiration() {
        }

        @Override
        protected void run() {
        }
    }

    /** What the model holds per linked element: the operation, and its node if it watches several keys. */
    private record Linked(Operation op, WatchNode node) {
    }

    private static Watchers newList() {
        return new Watchers("k", new WatcherList(OWNER, new PurgatoryCounters(), System::nanoTime));
    }

    @Test
    void linkAndUnlink_inEveryOrder_keepWatchOrderAndTheInvariantsAfterEveryStep() {
        for (Order order : Order.values()) {
            for (long seed = 1; seed <= 3; seed++) {
                runModel(order, new Random(seed));
            }
        }
    }

    /** Grows to a few thousand elements and back to none twice, checking the list against a model at every step. */
    private static void runModel(Order order, Random random) {
        Watchers list = newList();
        List<Linked> model = new ArrayList<>(); // in link order, whichever list the element is on
        for (int cycle = 0; cycle < 2; cycle++) {
            int target = 300 + random.nextInt(1_200);
            while (model.size() < target) {
                int burst = 1 + random.nextInt(20);
                for (int i = 0; i < burst; i++) {
                    model.add(link(list, random.nextBoolean()));
                    check(list, model, order);
                }
                int unlinks = random.nextInt(burst + 1); // fewer unlinks than links: the list grows
                for (int i = 0; i < unlinks && !model.isEmpty(); i++) {
                    unlinkOne(list, model, order, random);
                }
            }
            while (!model.isEmpty()) {
                unlinkOne(list, model, order, random);
                if (random.nextInt(4) == 0) { // a few links while it drains
                    model.add(link(list, true));
                    check(list, model, order);
                }
            }
            assertThat(list.isEmpty()).isTrue();
            assertThat(list.checkLinks(OWNER)).isZero();
        }
    }

    private static Linked link(Watchers list, boolean alone) {
        Op op = new Op();
        if (alone) {
            list.link(op);
            return new Linked(op, null);
        }
        WatchNode node = list.linkNode(op, null);
        op.watching = node;
        return new Linked(op, node);
    }

    private static void unlinkOne(Watchers list, List<Linked> model, Order order, Random random) {
        int i = switch (order) {
            case WATCH -> 0;
            case REVERSE -> model.size() - 1;
            case RANDOM -> random.nextInt(model.size());
            // the newest half leaves: the oldest survive at the front
            case OLDEST_SURVIVE -> model.size() / 2 + random.nextInt(model.size() - model.size() / 2);
        };
        Linked linked = model.remove(i);
        if (linked.node() == null) {
            assertThat(list.unlink(linked.op())).isTrue();
            assertThat(list.unlink(linked.op())).as("(K1) unlinked already").isFalse();
            assertThat(EngineInternals.prev(linked.op())).as("(K2)").isNull();
            assertThat(EngineInternals.next(linked.op())).as("(K2)").isNull();
        } else {
            assertThat(list.unlink(linked.node())).isTrue();
            assertThat(list.unlink(linked.node())).as("(K1) unlinked already").isFalse();
            assertThat(linked.node().prev).as("(K2)").isNull();
            assertThat(linked.node().next).as("(K2)").isNull();
        }
        check(list, model, order);
    }

    /** (K1): the list holds exactly the model's elements, those watching the key alone first, each part in order. */
    private static void check(Watchers list, List<Linked> model, Order order) {
        assertThat(list.checkLinks(OWNER)).as(order.name()).isEqualTo(model.size());
        List<Operation> expected = new ArrayList<>();
        model.stream().filter(l -> l.node() == null).forEach(l -> expected.add(l.op()));
        model.stream().filter(l -> l.node() != null).forEach(l -> expected.add(l.op()));
        Operation[] actual = new Operation[list.count(Visit.ALL, 0)];
        list.take(Visit.ALL, 0, actual);
        boolean inOrder = actual.length == expected.size();
        for (int i = 0; inOrder && i < actual.length; i++) {
            inOrder = actual[i] == expected.get(i);
        }
        assertThat(inOrder).as("(K1) watch order, %s", order).isTrue();
    }

    @Test
    void unlink_nodeAlreadyUnlinked_returnsFalseAndTheUnlinkedNodeHoldsNoLink() {
        Watchers list = newList();
        Op a = new Op();
        Op b = new Op();
        Op c = new Op();
        list.link(a);
        list.link(b);
        list.link(c);

        assertThat(list.unlink(b)).isTrue();
        assertThat(list.unlink(b)).as("(K1) already unlinked").isFalse();

        assertThat(list.checkLinks(OWNER)).isEqualTo(2);
        assertThat(EngineInternals.prev(c)).isSameAs(a);
        assertThat(EngineInternals.next(a)).isSameAs(c);
        assertThat(EngineInternals.next(b)).as("(K2) an unlinked operation reaches nothing").isNull();
        assertThat(EngineInternals.prev(b)).isNull();
        assertThat(list.unlink(a)).isTrue();
        assertThat(list.unlink(c)).isTrue();
        assertThat(list.isEmpty()).isTrue();
    }
}
