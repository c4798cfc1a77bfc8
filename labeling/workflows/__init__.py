"""EcoAgent-Real from n8n workflow templates: queries whose tools are known by construction (issue 25)."""
