//! The regular files of a gzipped tar archive (what `npm pack` writes), by
//! name: enough of the ustar format for an npm tarball, no more.

use anyhow::{Context, bail};
use std::collections::BTreeMap;
use std::io::Read;

/// Every regular file of the `.tgz` in `bytes`, by its path in the archive.
///
/// # Errors
/// When `bytes` is not gzip, or the tar inside is cut short or malformed.
pub(super) fn gzip_entries(bytes: &[u8]) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut tar)
        .context("not a gzip file")?;
    let mut files = BTreeMap::new();
    let mut at = 0;
    while at + 512 <= tar.len() {
        let header = &tar[at..at + 512];
        if header.iter().all(|&b| b == 0) {
            break;
        }
        let size = octal(&header[124..136]).context("a tar header with a bad size")?;
        let start = at + 512;
        let end = start
            .checked_add(size)
            .filter(|&end| end <= tar.len())
            .context("the tar archive is cut short")?;
        let kind = header[156];
        if kind == b'0' || kind == 0 {
            let name = text(&header[0..100]);
            let prefix = if &header[257..262] == b"ustar" {
                text(&header[345..500])
            } else {
                String::new()
            };
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            files.insert(path, tar[start..end].to_vec());
        }
        at = start + size.div_ceil(512) * 512;
    }
    if files.is_empty() {
        bail!("the tar archive holds no files");
    }
    Ok(files)
}

/// A NUL-terminated header field as text.
fn text(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

/// A NUL- or space-terminated octal header field.
fn octal(field: &[u8]) -> Option<usize> {
    let digits = text(field);
    let digits = digits.trim_matches(|c: char| c == ' ' || c == '\0');
    usize::from_str_radix(digits, 8).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A one-file ustar archive, gzipped.
    fn tgz(name: &str, body: &[u8]) -> Vec<u8> {
        let mut header = [0u8; 512];
        header[..name.len()].copy_from_slice(name.as_bytes());
        header[124..135].copy_from_slice(format!("{:011o}", body.len()).as_bytes());
        header[156] = b'0';
        header[257..262].copy_from_slice(b"ustar");
        let mut tar = header.to_vec();
        tar.extend_from_slice(body);
        tar.resize(512 + body.len().div_ceil(512) * 512 + 1024, 0);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&tar).unwrap();
        gz.finish().unwrap()
    }

    #[test]
    fn reads_back_a_file() {
        let files = gzip_entries(&tgz("package/a.txt", b"hello")).unwrap();
        assert_eq!(files["package/a.txt"], b"hello");
    }

    #[test]
    fn refuses_what_is_not_a_tarball() {
        assert!(gzip_entries(b"plain text").is_err());
        let mut cut = tgz("package/a.txt", &[7; 2000]);
        cut.truncate(cut.len() / 2);
        assert!(gzip_entries(&cut).is_err());
    }
}
