"""The extraction rule of labeling.package_requests.rules on docs text written here."""

from __future__ import annotations

from labeling.package_requests.rules import code_candidates, doc_candidates, request_reason

README = '''# Weather tools

Install with `pip install weather-tools`.

## Example prompts

- "What is the weather in Paris tomorrow?"
- Show me the forecast for Tokyo this weekend
- `get_forecast`

## Usage

```python
agent = ReActAgent(tools=spec.to_tool_list(), llm=llm)
agent.chat("Will it rain in Berlin on Saturday?")
llm.invoke("Write a haiku about the weather in spring")
spec.search(query="rain probability berlin saturday")
```

## Features

- Returns the forecast for any city in the world
'''


def _texts(kind: str) -> list[str]:
    return [c.text for c in doc_candidates(README, "README.md") if c.kind == kind]


def test_example_prompts_and_agent_calls_are_requests() -> None:
    requests = _texts("request")
    assert "What is the weather in Paris tomorrow?" in requests
    assert "Show me the forecast for Tokyo this weekend" in requests  # a whole item under a strong heading
    assert "Will it rain in Berlin on Saturday?" in requests
    assert not any("Returns the forecast" in t for t in requests)  # a feature list is not an example section


def test_llm_prompts_and_tool_inputs_are_counted_apart() -> None:
    assert _texts("llm_prompt") == ["Write a haiku about the weather in spring"]
    assert "rain probability berlin saturday" in _texts("tool_input")


def test_rst_titles_are_read_as_headings() -> None:
    rst = "Examples\n========\n\n- \"Find the cheapest flight from Oslo to Rome\"\n"
    assert [c.text for c in doc_candidates(rst, "docs/index.rst")] == ["Find the cheapest flight from Oslo to Rome"]


def test_a_crew_task_description_is_a_request() -> None:
    code = 'task = Task(description="Summarize the open issues of the repository", agent=writer)'
    (found,) = list(code_candidates(code, "Usage", 1))
    assert (found.text, found.how, found.kind) == ("Summarize the open issues of the repository", "crewai_task",
                                                    "request")  # fmt: skip


def test_the_filter_says_why_a_string_is_not_a_request() -> None:
    def reason(text: str, strong: bool = False) -> str:
        return request_reason(text, strong=strong, min_words=4, max_words=40)

    assert reason("Find the latest papers on diffusion models") == ""
    assert reason("Paris weather") == "too_short"
    assert reason("Call get_forecast(city='Paris') and print it") == "code_or_command"
    assert reason("Returns the forecast for a city as JSON") == "description"
    assert reason("Forecast: five days of hourly data for a city") == "label_line"
    assert reason("Sunny days are the best days of all") == "not_addressed"
    assert reason("Sunny days are the best days of all", strong=True) == ""  # under "Example prompts"
    assert reason(" ".join(["word"] * 41)) == "too_long"
