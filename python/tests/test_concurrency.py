"""Threads, asyncio and lifetimes: calls release the GIL, a Host is shared safely,
call_async never blocks the event loop, and a Host dropped mid-call finishes its calls."""

import asyncio
import gc
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import toolhost
from conftest import CACHE, guest


def test_eight_threads_call_one_host_at_once(examples):
    barrier = threading.Barrier(8)

    def work(index):
        barrier.wait()
        results = []
        for step in range(25):
            results.append(examples.call("gcd", {"a": 6 * (index + 1) * (step + 1), "b": 4 * (index + 1) * (step + 1)}))
        return results

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(work, range(8)))
    assert outcomes == [[2 * (i + 1) * (s + 1) for s in range(25)] for i in range(8)]


def test_calls_release_the_gil(hostile):
    # A Python thread can run while a tool runs only if the call released the GIL:
    # with it held, the counter would not advance at all during the call.
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        assert hostile.call("sleep", {"ms": 150}) == 150
    finally:
        stop.set()
        counter.join()
    assert len(ticks) >= 5, f"the counting thread ran only {len(ticks)} times during a 150 ms call"


def test_a_hundred_concurrent_call_async(examples):
    async def main():
        calls = [examples.call_async("gcd", {"a": 6 * n, "b": 4 * n}) for n in range(1, 101)]
        return await asyncio.gather(*calls)

    assert asyncio.run(main()) == [2 * n for n in range(1, 101)]


def test_call_async_does_not_block_the_event_loop(hostile):
    async def main():
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.005)

        ticker = asyncio.ensure_future(tick())
        result = await hostile.call_async("sleep", {"ms": 200})
        ticker.cancel()
        return result, ticks

    result, ticks = asyncio.run(main())
    assert result == 200
    assert ticks >= 5, f"the loop ran only {ticks} times during a 200 ms call"


def test_call_async_raises_the_corrective_error(first_run):
    async def main():
        return await first_run.call_async("web_serch", {"query": "x"})

    with pytest.raises(toolhost.ToolExecutionError, match=r"^Tool 'web_serch' not found\. Did you mean 'web_search'\?"):
        asyncio.run(main())


def test_call_async_refuses_unsendable_arguments_without_a_thread(examples):
    async def main():
        return await examples.call_async("ratio", {"numerator": float("nan"), "denominator": 1})

    with pytest.raises(toolhost.ToolExecutionError, match="finite number"):
        asyncio.run(main())


def test_call_async_needs_a_running_loop(examples):
    with pytest.raises(RuntimeError):
        examples.call_async("gcd", {"a": 1, "b": 1})


def test_a_cancelled_call_async_stops_and_frees_its_turn():
    # One call at a time, the next waiting 100 ms for its turn: while `spin` runs an
    # echo is refused as busy; once `spin` is cancelled the echo has its turn.
    one_turn = toolhost.Capacity(max_concurrent_calls=1, max_queued_calls=1, queue_timeout_ms=100)
    host = toolhost.Host([guest("hostile")], cache_dir=CACHE, capacity=one_turn)

    async def main():
        task = asyncio.ensure_future(host.call_async("spin"))
        await asyncio.sleep(0.3)
        with pytest.raises(toolhost.ToolExecutionError) as busy:
            await host.call_async("echo", {"text": "next"})
        assert busy.value.kind == "busy"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await host.call_async("echo", {"text": "next"})

    assert asyncio.run(main()) == "next"


def test_capacity_says_what_it_holds():
    capacity = toolhost.Capacity(max_concurrent_calls=2, queue_timeout_ms=5)
    assert (capacity.max_concurrent_calls, capacity.max_queued_calls, capacity.queue_timeout_ms) == (2, 1024, 5)
    with pytest.raises(ValueError):
        toolhost.Capacity(max_concurrent_calls=0)


def test_a_host_dropped_while_calls_run_finishes_them():
    host = toolhost.Host([guest("hostile")], cache_dir=CACHE)
    results = []

    def call():
        results.append(host_ref.call("sleep", {"ms": 200}))  # returns the ms slept

    host_ref = host
    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(0.05)
    del host, host_ref  # the threads' frames hold the last references now
    gc.collect()
    for thread in threads:
        thread.join(timeout=10)
    assert results == [200] * 4


def test_a_host_dropped_while_async_calls_run_finishes_them():
    async def main():
        host = toolhost.Host([guest("hostile")], cache_dir=CACHE)
        pending = [host.call_async("sleep", {"ms": 100}) for _ in range(4)]
        del host
        gc.collect()
        return await asyncio.gather(*pending)

    assert asyncio.run(main()) == [100] * 4
