"""What a tool returns besides its value: images, audio and resources as MCP content
blocks on ``CallOutcome.content``, and in each provider's tool-result message."""

import base64

import toolhost

from conftest import CACHE, guest


def conformance() -> toolhost.Host:
    return toolhost.Host([guest("conformance")], cache_dir=CACHE)


def test_a_tools_image_and_resource_are_content_blocks_beside_its_value():
    outcome = conformance().dispatch("test_multiple_content_types", {})
    assert outcome.ok and outcome.value is None
    assert [block["type"] for block in outcome.content] == ["text", "image", "resource"]
    image = outcome.content[1]
    assert image["mimeType"] == "image/png"
    assert base64.b64decode(image["data"]).startswith(b"\x89PNG")
    assert outcome.content[2]["resource"]["uri"] == "test://mixed-content-resource"


def test_each_provider_format_carries_what_it_can():
    outcome = conformance().dispatch("test_image_content", {})
    anthropic = outcome.tool_result("anthropic")
    assert anthropic[0]["type"] == "image" and anthropic[0]["source"]["media_type"] == "image/png"
    responses = outcome.tool_result("openai-responses")
    assert responses[0]["image_url"].startswith("data:image/png;base64,")
    assert outcome.tool_result("openai") == "[image: image/png, 69 bytes]"
    assert outcome.tool_result("mcp") == outcome.content
    failed = conformance().dispatch("test_error_handling", {})
    assert failed.content == [] and "intentionally" in failed.tool_result("openai")


def test_content_past_the_result_limit_fails_the_call():
    host = toolhost.Host([guest("hostile")], cache_dir=CACHE, limits=toolhost.Limits(result_kb=64))
    outcome = host.dispatch("add_images", {"count": 1, "size": 100_000})
    assert outcome.error is not None and outcome.error.kind == "result_too_large"
    assert host.call("echo", {"text": "after"}) == "after"
