"""A seed text in the seed paper's shape (``shared/seeds/001_*.txt`` is not in the repository): prose, then its Rust
code from the first ``use`` line to ``fn main``, a plain BM25 ``Index`` with the seed's API (``Tool``, ``tokenize``,
``Index::new``, ``select``, ``name``). ``benchmarking/seed_bm25.py`` cuts it out and compiles it with its harness."""

SEED = """The seed prints this std-only Rust file.

use std::collections::HashMap;

pub struct Tool {
    pub name: String,
    pub desc: String,
    pub perm: String,
    pub schema_len: usize,
    pub core: bool,
}

pub fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| w.to_lowercase()).collect()
}

pub struct Index {
    tools: Vec<Tool>,
    postings: HashMap<String, Vec<(usize, f64)>>,
    lengths: Vec<f64>,
    average: f64,
}

impl Index {
    pub fn new(tools: Vec<Tool>) -> Index {
        let mut postings: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (i, tool) in tools.iter().enumerate() {
            let words = tokenize(&format!("{} {}", tool.name, tool.desc));
            lengths.push(words.len() as f64);
            let mut counts: HashMap<String, f64> = HashMap::new();
            for w in words { *counts.entry(w).or_insert(0.0) += 1.0; }
            for (w, n) in counts { postings.entry(w).or_default().push((i, n)); }
        }
        let average = lengths.iter().sum::<f64>() / (lengths.len().max(1) as f64);
        Index { tools, postings, lengths, average }
    }

    pub fn name(&self, i: usize) -> &str {
        &self.tools[i].name
    }

    pub fn select(&self, query: &str, perms: &[&str], budget: usize) -> Vec<usize> {
        let n = self.tools.len() as f64;
        let mut scores = vec![0.0f64; self.tools.len()];
        for w in tokenize(query) {
            if let Some(list) = self.postings.get(&w) {
                let idf = ((n - list.len() as f64 + 0.5) / (list.len() as f64 + 0.5) + 1.0).ln();
                for &(i, tf) in list {
                    let norm = tf + 1.2 * (0.25 + 0.75 * self.lengths[i] / self.average);
                    scores[i] += idf * tf * 2.2 / norm;
                }
            }
        }
        let mut order: Vec<usize> = (0..self.tools.len())
            .filter(|&i| scores[i] > 0.0 || self.tools[i].core)
            .filter(|&i| self.tools[i].perm.is_empty() || perms.contains(&self.tools[i].perm.as_str()))
            .collect();
        order.sort_by(|&a, &b| scores[b].partial_cmp(&scores[a]).unwrap().then(a.cmp(&b)));
        let mut spent = 0;
        let mut chosen = Vec::new();
        for i in order {
            let t = &self.tools[i];
            let cost = (t.name.len() + t.desc.len() + t.schema_len) / 4 + 1;
            if spent + cost <= budget {
                spent += cost;
                chosen.push(i);
            }
        }
        chosen
    }
}

fn main() {
    let index = Index::new(vec![]);
    assert!(index.select("anything", &[], 100).is_empty());
}
"""

