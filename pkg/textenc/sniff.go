package textenc

// FileType is a file format known by its magic number.
type FileType struct {
	Name string // for people: "PNG image", "ELF executable"
	MIME string
	// Weak signatures are short or printable ("MZ", "BM") and can begin a
	// text file too: trust them only when the bytes also look binary.
	Weak bool
}

type signature struct {
	offset int
	magic  string
	typ    FileType
}

// signatures are checked in order; the first match wins. Container
// formats with a sub-type (RIFF, ISO media) are handled in SniffType.
var signatures = []signature{
	{0, "\x89PNG\r\n\x1a\n", FileType{Name: "PNG image", MIME: "image/png"}},
	{0, "\xff\xd8\xff", FileType{Name: "JPEG image", MIME: "image/jpeg"}},
	{0, "GIF87a", FileType{Name: "GIF image", MIME: "image/gif"}},
	{0, "GIF89a", FileType{Name: "GIF image", MIME: "image/gif"}},
	{0, "II*\x00", FileType{Name: "TIFF image", MIME: "image/tiff"}},
	{0, "MM\x00*", FileType{Name: "TIFF image", MIME: "image/tiff"}},
	{0, "8BPS", FileType{Name: "Photoshop image", MIME: "image/vnd.adobe.photoshop"}},
	{0, "\x00\x00\x01\x00", FileType{Name: "ICO image", MIME: "image/x-icon"}},
	{0, "BM", FileType{Name: "BMP image", MIME: "image/bmp", Weak: true}},
	{0, "%PDF-", FileType{Name: "PDF document", MIME: "application/pdf"}},
	{0, "PK\x03\x04", FileType{Name: "ZIP archive", MIME: "application/zip"}},
	{0, "PK\x05\x06", FileType{Name: "ZIP archive", MIME: "application/zip"}},
	{0, "\x1f\x8b", FileType{Name: "gzip archive", MIME: "application/gzip"}},
	{0, "BZh", FileType{Name: "bzip2 archive", MIME: "application/x-bzip2", Weak: true}},
	{0, "\xfd7zXZ\x00", FileType{Name: "xz archive", MIME: "application/x-xz"}},
	{0, "\x28\xb5\x2f\xfd", FileType{Name: "zstd archive", MIME: "application/zstd"}},
	{0, "\x04\x22\x4d\x18", FileType{Name: "LZ4 archive", MIME: "application/x-lz4"}},
	{0, "7z\xbc\xaf\x27\x1c", FileType{Name: "7-Zip archive", MIME: "application/x-7z-compressed"}},
	{0, "Rar!\x1a\x07", FileType{Name: "RAR archive", MIME: "application/vnd.rar"}},
	{257, "ustar", FileType{Name: "tar archive", MIME: "application/x-tar", Weak: true}}, // deep in the block: text could hold it
	{0, "!<arch>\n", FileType{Name: "ar archive", MIME: "application/x-archive"}},
	{0, "\xed\xab\xee\xdb", FileType{Name: "RPM package", MIME: "application/x-rpm"}},
	{0, "\x7fELF", FileType{Name: "ELF executable", MIME: "application/x-elf"}},
	{0, "\xfe\xed\xfa\xce", FileType{Name: "Mach-O executable", MIME: "application/x-mach-binary"}},
	{0, "\xfe\xed\xfa\xcf", FileType{Name: "Mach-O executable", MIME: "application/x-mach-binary"}},
	{0, "\xce\xfa\xed\xfe", FileType{Name: "Mach-O executable", MIME: "application/x-mach-binary"}},
	{0, "\xcf\xfa\xed\xfe", FileType{Name: "Mach-O executable", MIME: "application/x-mach-binary"}},
	{0, "\xca\xfe\xba\xbe", FileType{Name: "Java class or Mach-O universal binary", MIME: "application/java-vm"}},
	{0, "MZ", FileType{Name: "Windows executable", MIME: "application/vnd.microsoft.portable-executable", Weak: true}},
	{0, "\x00asm", FileType{Name: "WebAssembly module", MIME: "application/wasm"}},
	{0, "SQLite format 3\x00", FileType{Name: "SQLite database", MIME: "application/vnd.sqlite3"}},
	{0, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", FileType{Name: "MS Office (OLE2) document", MIME: "application/x-ole-storage"}},
	{0, "ID3", FileType{Name: "MP3 audio", MIME: "audio/mpeg", Weak: true}},
	{0, "OggS", FileType{Name: "Ogg media", MIME: "audio/ogg"}},
	{0, "fLaC", FileType{Name: "FLAC audio", MIME: "audio/flac"}},
	{0, "\x1a\x45\xdf\xa3", FileType{Name: "WebM/Matroska video", MIME: "video/webm"}},
	{0, "wOFF", FileType{Name: "WOFF font", MIME: "font/woff"}},
	{0, "wOF2", FileType{Name: "WOFF2 font", MIME: "font/woff2"}},
	{0, "\x00\x01\x00\x00\x00", FileType{Name: "TrueType font", MIME: "font/ttf"}},
	{0, "OTTO", FileType{Name: "OpenType font", MIME: "font/otf", Weak: true}},
}

// SniffType names a file's format from its first bytes (pass at least
// 512; SniffLen is plenty). It knows images, documents, archives,
// executables, media and fonts; text formats are not its business.
func SniffType(head []byte) (FileType, bool) {
	if len(head) >= 12 && string(head[:4]) == "RIFF" {
		switch string(head[8:12]) {
		case "WEBP":
			return FileType{Name: "WebP image", MIME: "image/webp"}, true
		case "WAVE":
			return FileType{Name: "WAV audio", MIME: "audio/wav"}, true
		case "AVI ":
			return FileType{Name: "AVI video", MIME: "video/x-msvideo"}, true
		}
	}
	if len(head) >= 12 && string(head[4:8]) == "ftyp" {
		switch brand := string(head[8:12]); brand {
		case "heic", "heix", "hevc", "mif1", "msf1":
			return FileType{Name: "HEIF image", MIME: "image/heic"}, true
		case "avif", "avis":
			return FileType{Name: "AVIF image", MIME: "image/avif"}, true
		case "qt  ":
			return FileType{Name: "QuickTime video", MIME: "video/quicktime"}, true
		case "M4A ", "M4B ":
			return FileType{Name: "MPEG-4 audio", MIME: "audio/mp4"}, true
		default:
			return FileType{Name: "MPEG-4 video", MIME: "video/mp4"}, true
		}
	}
	for _, s := range signatures {
		if len(head) >= s.offset+len(s.magic) && string(head[s.offset:s.offset+len(s.magic)]) == s.magic {
			return s.typ, true
		}
	}
	return FileType{}, false
}
