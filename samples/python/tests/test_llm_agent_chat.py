"""llm_agent/chat.py against a stub endpoint: what is retried, how long it waits, what is not."""
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llm_agent.chat import Chat, ChatError, Interrupted, retry_after_seconds  # noqa: E402
from stub_chat import StubServer, completion  # noqa: E402

OK = (200, {}, completion({"content": "hello"}, {"prompt_tokens": 3, "completion_tokens": 1}))


def scripted(*answers):
    """Answers in order, the last one repeated."""
    queue = list(answers)
    return lambda body: queue.pop(0) if len(queue) > 1 else queue[0]


def chat_for(stub, **options):
    return Chat(stub.url, "stub-model", "secret", **{"backoff_s": 0.01, "max_backoff_s": 0.05, **options})


def test_a_429_waits_what_retry_after_asks_then_succeeds():
    with StubServer(scripted((429, {"Retry-After": "1"}, {"error": {"message": "slow down"}}), OK)) as stub:
        retries = []
        answer = chat_for(stub).complete([{"role": "user", "content": "hi"}], on_retry=retries.append)
    assert answer["choices"][0]["message"]["content"] == "hello"
    assert [(r.attempt, r.status, r.wait_s) for r in retries] == [(1, 429, 1.0)]
    assert "slow down" in retries[0].error
    (first, _, status), (second, body, _) = stub.log
    assert status == 429 and second - first >= 1.0
    assert body["model"] == "stub-model" and body["messages"] == [{"role": "user", "content": "hi"}]


def test_retry_after_ms_and_http_dates():
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"Retry-After": "7"}) == 7.0
    assert 58 <= retry_after_seconds({"Retry-After": time.strftime(
        "%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 60))}) <= 60
    assert retry_after_seconds({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # past
    assert retry_after_seconds({"Retry-After": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_a_503_storm_beyond_max_retries_is_an_error_naming_it():
    with StubServer(scripted((503, {}, {"error": {"message": "overloaded"}}))) as stub:
        retries = []
        with pytest.raises(ChatError) as caught:
            chat_for(stub, max_retries=2).complete([], on_retry=retries.append)
    assert len(stub.log) == 3 and [r.attempt for r in retries] == [1, 2]
    assert all(0 <= r.wait_s <= 0.05 for r in retries)  # jittered, capped by max_backoff_s
    assert caught.value.status == 503
    assert "failed 3 times" in str(caught.value) and "HTTP 503: overloaded" in str(caught.value)
    assert "--max-retries 2" in str(caught.value)


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_a_permanent_error_is_not_retried(status):
    with StubServer(scripted((status, {}, {"error": {"message": "invalid api key"}}))) as stub:
        with pytest.raises(ChatError) as caught:
            chat_for(stub).complete([])
    assert len(stub.log) == 1 and caught.value.status == status
    assert f"HTTP {status}: invalid api key (permanent; not retried)" in str(caught.value)


def test_a_reply_without_choices_is_retried():
    with StubServer(scripted((200, {}, {"error": "upstream hiccup"}), OK)) as stub:
        retries = []
        chat_for(stub).complete([], on_retry=retries.append)
    assert len(stub.log) == 2 and "no choices" in retries[0].error


def test_a_dropped_connection_and_a_timeout_are_retried():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]

    def serve():  # first connection: closed unanswered; second: never answered (the client times out)
        first, _ = listener.accept()
        first.recv(65536)
        first.close()
        second, _ = listener.accept()
        time.sleep(1.5)
        second.close()

    threading.Thread(target=serve, daemon=True).start()
    retries = []
    chat = Chat(f"http://127.0.0.1:{port}/v1", "m", "k", timeout_s=0.5, max_retries=1, backoff_s=0.01)
    with pytest.raises(ChatError) as caught:
        chat.complete([], on_retry=retries.append)
    listener.close()
    assert len(retries) == 1 and "no complete answer" in retries[0].error, retries
    assert "timed out" in str(caught.value)


def test_a_stop_ends_the_wait_between_retries():
    with StubServer(scripted((429, {"Retry-After": "30"}, None))) as stub:
        chat = chat_for(stub)
        threading.Timer(0.3, chat.stop.set).start()
        started = time.monotonic()
        with pytest.raises(Interrupted):
            chat.complete([])
    assert time.monotonic() - started < 5 and len(stub.log) == 1
