package io.purgatory.timer;

import java.util.function.Consumer;

/** A test task: counts its runs, tells a listener, then runs a body the test may script. Single-threaded use. */
class ScriptedTask extends TimerTask {

    int runs;
    Runnable body = () -> { };
    private final Consumer<? super ScriptedTask> onRun;

    ScriptedTask(long delayMs) {
        this(delayMs, task -> { });
    }

    ScriptedTask(long delayMs, Consumer<? super ScriptedTask> onRun) {
        super(delayMs);
        this.onRun = onRun;
    }

    @Override
    public void run() {
        runs++;
        onRun.accept(this);
        body.run();
    }
}
