import pytest

from crawlers.links import classify_links, placeholder_reason


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://api.hubapi.com${endpoint}", "templated"),
        ("={{$credentials?.server}}", "templated"),
        ("https://www.googleapis.com/customsearch/v1?key={key}", "templated"),
        ("http://localhost:8888", "placeholder_host"),
        ("http://my.searx.host", "placeholder_host"),
        ("https://[your-service.example]/api", "templated"),
        ("http://www.w3.org/2005/Atom", "namespace_uri"),
        ("ftp://files.example.org/x", "not_http"),
        ("https://docs.n8n.io/integrations/builtin/app-nodes/n8n-nodes-base.slack/", None),
        ("https://api.search.brave.com/res/v1/web/search", None),
    ],
)
def test_placeholders_are_recognised(url, reason):
    assert placeholder_reason(url) == reason


def test_links_are_classified_and_never_marked_broken_offline():
    links = classify_links(
        ["https://docs.example-tool.io/slack", "crewai_tools/tools/x/README.md"],
        ["https://slack.com/api", "http://localhost:3000", "https://docs.example-tool.io/slack"],
    )
    by_url = {link.url: link for link in links}
    assert by_url["https://docs.example-tool.io/slack"].kind == "doc"  # listed as both: a doc
    assert by_url["https://slack.com/api"].kind == "endpoint"
    assert by_url["http://localhost:3000"].kind == "placeholder"
    assert by_url["crewai_tools/tools/x/README.md"].reason == "package_file"
    assert {link.link_status for link in links} == {"unknown"}
