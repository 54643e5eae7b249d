package io.purgatory.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.purgatory.KeyRenderer;
import io.purgatory.KeyedWaits;
import io.purgatory.PendingOperation;
import io.purgatory.PendingOrder;
import io.purgatory.TenantUsage;
import io.purgatory.spring.PurgatoriesEndpoint.PurgatoryDetail;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * {@code /actuator/purgatories/{name}} as a method: one purgatory's counters, its pending operations
 * ({@code limit}, {@code order}) with their keys as the endpoint's renderer shows them, its top
 * tenants; on a manual timer, so ages and times left are exact.
 */
class PurgatoriesEndpointTest {

    private final ManualTimer timer = new ManualTimer();
    private final KeyedWaits<String, String> waits = KeyedWaits.builder("payments").timer(timer).build();
    private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();

    PurgatoriesEndpointTest() {
        beans.registerSingleton("paymentWaits", waits);
    }

    @AfterEach
    void close() {
        waits.close();
    }

    /** Waits on order-1 (timeout 5 s), order-2 (1 s) and order-3 (3 s), watched 100 ms apart. */
    private void threeWaits() {
        await("order-1", 5_000);
        await("order-2", 1_000);
        await("order-3", 3_000);
    }

    private void await(String key, long timeoutMs) {
        CompletableFuture<String> unused = waits.await(key, Duration.ofMillis(timeoutMs));
        timer.advanceClock(100);
    }

    @Test
    void purgatory_limitAndOldest_listsTheOldestInOrderWithTheCounters() {
        threeWaits();

        PurgatoryDetail detail = new PurgatoriesEndpoint(beans).purgatory("payments", "2", "oldest");

        assertThat(detail.bean()).isEqualTo("paymentWaits");
        assertThat(detail.type()).isEqualTo("keyed-waits");
        assertThat(detail.pending()).isEqualTo(3);
        assertThat(detail.counters()).isEqualTo(new PurgatoriesEndpoint(beans).purgatories().purgatories()
                .get("payments"));
        assertThat(detail.pendingOperations()).extracting(PendingOperation::kind, PendingOperation::keys,
                PendingOperation::ageMs, PendingOperation::timeLeftMs, PendingOperation::tried)
                .containsExactly(tuple("KeyedWait", List.of("order-1"), 300L, 4_700L, false),
                        tuple("KeyedWait", List.of("order-2"), 200L, 800L, false));
        assertThat(detail.topTenants()).as("no tenants: left out").isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"soonest-due", "SOONEST_DUE_FIRST", " Soonest-Due-First "})
    void purgatory_soonestDueByEitherName_listsTheSoonestDueFirst(String order) {
        threeWaits();

        PurgatoryDetail detail = new PurgatoriesEndpoint(beans).purgatory("payments", null, order);

        assertThat(detail.pendingOperations()).extracting(op -> op.keys().get(0))
                .containsExactly("order-2", "order-3", "order-1");
    }

    @Test
    void purgatory_noParameters_listsTwentyOldestFirst() {
        for (int i = 0; i < 25; i++) {
            await("order-" + i, 60_000);
        }

        PurgatoryDetail detail = new PurgatoriesEndpoint(beans).purgatory("payments", null, null);

        assertThat(detail.pendingOperations()).hasSize(PurgatoriesEndpoint.DEFAULT_LIMIT)
                .extracting(op -> op.keys().get(0)).startsWith("order-0", "order-1", "order-2")
                .endsWith("order-19");
        assertThat(new PurgatoriesEndpoint(beans).purgatory("payments", "0", null).pendingOperations()).isEmpty();
        assertThat(new PurgatoriesEndpoint(beans).purgatory("payments", "1000", null).pendingOperations())
                .hasSize(25);
    }

    @Test
    void purgatory_hiddenOrTruncatedKeys_showsThemSo() {
        await("alice@example.com", 1_000);

        assertThat(new PurgatoriesEndpoint(beans, KeyRenderer.HIDDEN).purgatory("payments", "1", null)
                .pendingOperations().get(0).keys()).containsExactly("*");
        assertThat(new PurgatoriesEndpoint(beans, KeyRenderer.truncated(5)).purgatory("payments", "1", null)
                .pendingOperations().get(0).keys()).containsExactly("alice…");
        assertThat(new PurgatoriesEndpoint(beans).purgatory("payments", "1", null)
                .pendingOperations().get(0).keys()).containsExactly("alice@example.com");
    }

    @Test
    void purgatory_withTenants_listsTheTopTenantsShownByTheRenderer() {
        try (KeyedWaits<String, String> tenanted = KeyedWaits.builder("tenanted").timer(timer)
                .tenants((String key) -> key.substring(0, key.indexOf('/')), 10).build()) {
            beans.registerSingleton("tenantedWaits", tenanted);
            for (String key : new String[] {"acme/1", "acme/2", "globex/1"}) {
                CompletableFuture<String> unused = tenanted.await(key, Duration.ofSeconds(5));
            }

            PurgatoryDetail shown = new PurgatoriesEndpoint(beans).purgatory("tenanted", "1", null);
            PurgatoryDetail hidden = new PurgatoriesEndpoint(beans, KeyRenderer.HIDDEN)
                    .purgatory("tenanted", "1", null);

            assertThat(shown.topTenants()).containsExactly(new TenantUsage("acme", 2, 0),
                    new TenantUsage("globex", 1, 0));
            assertThat(shown.pendingOperations().get(0).tenant()).isEqualTo("acme");
            assertThat(hidden.topTenants()).extracting(TenantUsage::tenant).containsExactly("*", "*");
            assertThat(hidden.pendingOperations().get(0).tenant()).isEqualTo("*");
        }
    }

    @Test
    void purgatory_unknownName_isNullForA404() {
        assertThat(new PurgatoriesEndpoint(beans).purgatory("paymentWaits", null, null)).isNull();
    }

    @ParameterizedTest
    @CsvSource(value = {"-1", "1001", "ten", "''", "2.5", "99999999999"})
    void purgatory_badLimit_isABadRequestNamingTheParameter(String limit) {
        assertThatThrownBy(() -> new PurgatoriesEndpoint(beans).purgatory("payments", limit, null))
                .isInstanceOf(InvalidEndpointRequestException.class)
                .hasMessage("limit must be a whole number from 0 to 1000 (default 20), not '" + limit + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"newest", "", "oldest first"})
    void purgatory_badOrder_isABadRequestNamingTheParameter(String order) {
        assertThatThrownBy(() -> new PurgatoriesEndpoint(beans).purgatory("payments", null, order))
                .isInstanceOf(InvalidEndpointRequestException.class)
                .hasMessage("order must be oldest or soonest-due (or OLDEST_FIRST, SOONEST_DUE_FIRST), not '"
                        + order + "'")
                .extracting(e -> ((InvalidEndpointRequestException) e).getReason()).asString().startsWith("order");
    }

    @Test
    void order_everyName_isItsPendingOrder() {
        assertThat(PurgatoriesEndpoint.order(null)).isEqualTo(PendingOrder.OLDEST_FIRST);
        assertThat(PurgatoriesEndpoint.order("oldest")).isEqualTo(PendingOrder.OLDEST_FIRST);
        assertThat(PurgatoriesEndpoint.order("OLDEST_FIRST")).isEqualTo(PendingOrder.OLDEST_FIRST);
        assertThat(PurgatoriesEndpoint.order("soonest-due")).isEqualTo(PendingOrder.SOONEST_DUE_FIRST);
    }
}
