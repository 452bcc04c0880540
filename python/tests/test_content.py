"""What a tool returns besides its value: images, audio and resources as MCP content
blocks on ``CallOutcome.content``, and in each provider's tool-result message; and
what a component offers besides tools: resources and prompts."""

import base64

import pytest

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


def test_a_components_resources_and_prompts_are_listed_read_and_got():
    host = conformance()
    resources, templates = host.list_resources()
    assert [resource["uri"] for resource in resources][:2] == ["test://static-text", "test://static-binary"]
    assert templates[0]["uriTemplate"] == "test://template/{id}/data"
    assert host.read_resource("test://template/7/data")[0]["mimeType"] == "application/json"
    with pytest.raises(toolhost.ToolExecutionError, match="test://nothing"):
        host.read_resource("test://nothing")
    assert "test_prompt_with_arguments" in [prompt["name"] for prompt in host.list_prompts()]
    messages = host.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
    assert messages == [{"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='a', arg2='b'"}}]
    with pytest.raises(toolhost.ToolExecutionError, match="the argument 'arg2' is missing"):
        host.get_prompt("test_prompt_with_arguments", {"arg1": "a"})
